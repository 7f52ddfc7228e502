import { randomBytes } from 'node:crypto';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { cleanEnv, exited, runCli, startServe } from '../support/cli-process.js';
import { createTestDatabase } from '../support/mysql-database.js';
import type { TestDatabase } from '../support/mysql-database.js';
import { deleteRedisKeys, redisTestUrl } from '../support/redis.js';

// Two real `serve` processes on one MariaDB database with a client limit of 5 calls per key and
// IP: the limit must hold over both together, whether the counters live in the database (the
// default with --database) or in Redis (SVC_REDIS_URL).
let db: TestDatabase;
let apiKey = '';
const masterKey = randomBytes(32).toString('base64');
const base = `svc-test:${randomBytes(6).toString('hex')}`;
const redis = new Redis(redisTestUrl);
let servers: ChildProcessWithoutNullStreams[] = [];

const env = (redisUrl: string) => ({ ...cleanEnv, SVC_MASTER_KEY: masterKey, SVC_OUTBOX_DIR: '', SVC_REDIS_URL: redisUrl, SVC_RATE_LIMIT_CLIENT_KEY: '5' });

beforeAll(async () => {
  db = await createTestDatabase('sharedlimit');
  const created = await runCli(['account', 'create', '--name', 'Shared', '--owner-email', 'o@shared.test', '--service-plan', 'unlimited', '--database', db.url], env(''));
  expect(created.stderr).toBe('');
  apiKey = (JSON.parse(created.stdout) as { apiKey: string }).apiKey;
}, 60_000);

afterEach(async () => {
  for (const child of servers.splice(0)) {
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  }
}, 60_000);

afterAll(async () => {
  await db?.drop();
  await deleteRedisKeys(redis, base);
  await redis.quit();
}, 60_000);

async function startTwo(redisUrl: string): Promise<string[]> {
  const started = await Promise.all([0, 1].map(() => startServe(['--database', db.url, '--port', '0'], env(redisUrl))));
  servers = started.map((s) => s.child);
  return started.map((s) => s.url);
}

async function post(url: string, path: string, body: unknown, key?: string) {
  const res = await fetch(`${url}/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { authorization: `Bearer ${key}` }) },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

/** A new license; then activate once and validate five times, alternating between the two servers. */
async function sixCalls(urls: string[]) {
  const product = await post(urls[0]!, '/products', { name: 'Shared App', keyPrefix: 'SH-' }, apiKey);
  const plan = await post(urls[1]!, `/products/${product.body.id}/plans`, { code: 'pro', kind: 'subscription', maxActivations: 2 }, apiKey);
  const license = await post(urls[0]!, '/licenses', { plan: plan.body.id, email: 'b@shared.test', paidUntil: '2099-01-01T00:00:00Z' }, apiKey);
  expect(license.status).toBe(201);
  const body = { product: product.body.id, key: license.body.key, fingerprint: 'c'.repeat(64) };
  const answers = [await post(urls[0]!, '/licenses/activate', body)];
  for (let i = 1; i < 6; i++) answers.push(await post(urls[i % 2]!, '/licenses/validate', body));
  return answers;
}

function expectLimitHeldAcrossBoth(answers: Awaited<ReturnType<typeof sixCalls>>) {
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429]);
  expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['4', '3', '2', '1', '0', '0']);
  const refused = answers[5]!;
  expect(refused.body.error.code).toBe('rate_limited');
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);
  expect(refused.headers.get('x-ratelimit-limit')).toBe('5');
}

describe('two serve processes on one database share the client rate limit', () => {
  test('in the database by default: the 6th call over both answers 429 rate_limited with Retry-After', async () => {
    const answers = await sixCalls(await startTwo(''));
    expectLimitHeldAcrossBoth(answers);
    const rows = await db.admin<{ bucket: string; count: number }[]>(`SELECT \`bucket\`, \`count\` FROM \`${db.name}\`.\`rate_limits\` WHERE \`bucket\` LIKE 'client-key:%'`);
    expect(rows.map((r) => Number(r.count))).toEqual([6]);
  });

  test('in Redis with SVC_REDIS_URL: the same, with the counters under the URL prefix and none in the database', async () => {
    const before = await db.admin<{ n: number }[]>(`SELECT COUNT(*) AS n FROM \`${db.name}\`.\`rate_limits\``);
    const answers = await sixCalls(await startTwo(`${redisTestUrl}?prefix=${base}`));
    expectLimitHeldAcrossBoth(answers);
    const keys = await redis.keys(`${base}:client-key:*`);
    expect(keys).toHaveLength(1);
    expect(await redis.get(keys[0]!)).toBe('6');
    const after = await db.admin<{ n: number }[]>(`SELECT COUNT(*) AS n FROM \`${db.name}\`.\`rate_limits\``);
    expect(Number(after[0]!.n)).toBe(Number(before[0]!.n));
  });

  test('serve refuses to start when the Redis of SVC_REDIS_URL cannot be reached', async () => {
    const result = await runCli(['serve', '--database', db.url, '--port', '0'], env('redis://:secret@127.0.0.1:1'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1/);
    expect(result.stderr).not.toContain('secret');
  });
});
