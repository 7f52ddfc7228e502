import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { signProviderB } from '@svc-licensing/provider-webhooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cleanEnv, exited, runCli, startServe } from '../support/cli-process.js';
import { PRICES, SECRET_B, fixtureJson } from '../support/payment-world.js';
import { createTestDatabase } from '../support/mysql-database.js';
import type { TestDatabase } from '../support/mysql-database.js';

// Two real server processes (`svc-licensing serve --database ...`) on one MariaDB database,
// called in parallel: every invariant must hold across processes, not only inside one.
let db: TestDatabase;
let outbox: string;
let servers: { child: ChildProcessWithoutNullStreams; url: string }[] = [];
let apiKey = '';
const env = () => ({
  ...cleanEnv,
  SVC_MASTER_KEY: masterKey,
  SVC_OUTBOX_DIR: outbox,
  SVC_RATE_LIMIT_VENDOR: '1000000',
  SVC_RATE_LIMIT_CLIENT_KEY: '1000000',
  SVC_RATE_LIMIT_CLIENT_IP: '1000000',
});
const masterKey = randomBytes(32).toString('base64');

beforeAll(async () => {
  db = await createTestDatabase('multi');
  outbox = await mkdtemp(join(tmpdir(), 'svc-multi-'));
  const created = await runCli(['account', 'create', '--name', 'Multi', '--owner-email', 'o@multi.test', '--service-plan', 'unlimited', '--database', db.url], env());
  expect(created.stderr).toBe('');
  apiKey = (JSON.parse(created.stdout) as { apiKey: string }).apiKey;
  servers = await Promise.all([0, 1].map(() => startServe(['--database', db.url, '--port', '0', '--host', '127.0.0.1'], env())));
}, 60_000);

afterAll(async () => {
  for (const { child } of servers) {
    child.kill('SIGTERM');
    await exited(child);
  }
  await db?.drop();
  await rm(outbox, { recursive: true, force: true });
}, 60_000);

/** Server `i % 2`, so parallel calls alternate between the two processes. */
const on = (i: number) => servers[i % 2]!.url;
async function call(i: number, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${on(i)}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
}
async function must(answer: Promise<{ status: number; body: any }>, status: number) {
  const a = await answer;
  if (a.status !== status) throw new Error(`expected ${status}, got ${a.status}: ${JSON.stringify(a.body)}`);
  return a.body;
}

async function productWithPlan(maxActivations: number) {
  const product = await must(call(0, 'POST', '/products', { name: 'Multi App', keyPrefix: 'MU-' }), 201);
  const plan = await must(call(1, 'POST', `/products/${product.id}/plans`, { code: 'pro', kind: 'subscription', maxActivations }), 201);
  return { product, plan };
}

describe('two server processes on one MariaDB database', () => {
  test('parallel activations spread over both never exceed the activation limit', async () => {
    const { plan } = await productWithPlan(3);
    const license = await must(call(0, 'POST', '/licenses', { plan: plan.id, email: 'buyer@multi.test', paidUntil: '2099-01-01T00:00:00Z' }), 201);
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        call(i, 'POST', '/licenses/activate', { product: license.product, key: license.key, fingerprint: i.toString(16).padStart(64, 'b') }),
      ),
    );
    const ok = answers.filter((a) => a.status === 200 || a.status === 201);
    const refused = answers.filter((a) => a.status === 409 && a.body?.error?.code === 'activation_limit');
    expect([ok.length, refused.length]).toEqual([3, 13]);
    const after = await must(call(1, 'GET', `/licenses/${license.id}`), 200);
    expect(after.activationCount).toBe(3);
    expect(after.activations).toHaveLength(3);
  });

  test('one webhook delivered to both at once is processed once', async () => {
    const { product } = await productWithPlan(2);
    const integration = await must(
      call(0, 'POST', '/integrations', { provider: 'provider_b', product: product.id, priceMap: { [PRICES.b.pro]: 'pro' }, webhookSecret: SECRET_B }),
      201,
    );
    const event = fixtureJson('provider_b', 'subscription_created');
    event.data.attributes.user_email = 'once@multi.test';
    const raw = JSON.stringify(event);
    const signature = signProviderB(raw, SECRET_B);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call(i, 'POST', `/webhooks/provider_b/${integration.id}`, raw, { 'x-signature': signature })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(answers.filter((a) => a.body.result === 'processed')).toHaveLength(1);
    expect(answers.filter((a) => a.body.result === 'duplicate')).toHaveLength(7);
    const licenses = await must(call(1, 'GET', '/licenses?email=once@multi.test'), 200);
    expect(licenses.data).toHaveLength(1);
  });

  test('a revoke racing payments on both ends revoked', async () => {
    const { product } = await productWithPlan(2);
    const integration = await must(
      call(1, 'POST', '/integrations', { provider: 'provider_b', product: product.id, priceMap: { [PRICES.b.pro]: 'pro' }, webhookSecret: SECRET_B }),
      201,
    );
    const send = (i: number, second: number) => {
      const event = fixtureJson('provider_b', 'subscription_created');
      event.meta.event_name = second === 0 ? 'subscription_created' : 'subscription_updated';
      event.data.attributes.user_email = 'race@multi.test';
      event.data.attributes.updated_at = `2024-06-05T11:21:${String(second).padStart(2, '0')}.000000Z`;
      event.data.attributes.renews_at = `2099-0${1 + (second % 9)}-05T11:20:14.000000Z`;
      const raw = JSON.stringify(event);
      return call(i, 'POST', `/webhooks/provider_b/${integration.id}`, raw, { 'x-signature': signProviderB(raw, SECRET_B) });
    };
    expect((await send(0, 0)).status).toBe(200);
    const [license] = (await must(call(0, 'GET', '/licenses?email=race@multi.test'), 200)).data;
    const racers = [...Array.from({ length: 10 }, (_, i) => send(i, i + 1)), call(1, 'POST', `/licenses/${license.id}/revoke`)];
    const answers = await Promise.all(racers);
    expect(answers.at(-1)!.status).toBe(200);
    expect(answers.slice(0, -1).every((a) => a.status === 200 || a.body?.error?.code === 'conflict')).toBe(true);
    expect((await must(call(0, 'GET', `/licenses/${license.id}`), 200)).status).toBe('revoked');
  });
});
