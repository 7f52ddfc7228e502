import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { decodeCertificate } from '@svc-licensing/cert-format';
import { signProviderA } from '@svc-licensing/provider-webhooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { verifyRevocationList } from '@svc-licensing/verifier';
import { fixtureJson } from '../../../../fixtures/index.js';
import { cleanEnv, exited, onLines, runCli, startServe } from '../support/cli-process.js';
import { fingerprint } from '../support/fixtures.js';
import { startGalera } from '../support/galera.js';
import type { GaleraCluster } from '../support/galera.js';
import { notificationsOnGalera } from '../notifications/support/galera-case.js';
import type { CounterRecord } from '@svc-licensing/license-engine';
import { createMySqlStore, rawUnitOf } from '../../src/stores/mysql/store.js';
import { tables } from '../../src/stores/mysql/schema.js';
import { createTx } from '../../src/stores/mysql/tx.js';
import { createWireRecorder } from '../support/mysql-wire.js';

// A real 3-node MariaDB Galera cluster (multi-primary), one server process per node, rate limits in
// Redis, requests spread over all three. Every rule that holds on one database must hold here.
const SECRET = 'whsec_galera_test';
const PRO_PRICE = 'pri_01hv0vax6rv18t4tamj848ne4d';
const LIFETIME_PRICE = 'pri_01hv0w3gq5t6wkq9r2dq7y8m1b';

let cluster: GaleraCluster;
const database = `galera_${randomBytes(5).toString('hex')}`;
const env = {
  ...cleanEnv,
  SVC_MASTER_KEY: randomBytes(32).toString('base64'),
  SVC_OUTBOX_DIR: `/tmp/svc-galera-outbox-${process.pid}`,
  SVC_RATE_LIMIT_CLIENT_KEY: '1000000',
  SVC_RATE_LIMIT_CLIENT_IP: '1000000',
  SVC_RATE_LIMIT_VENDOR: '1000000',
};
const redisArgs = ['--redis-url', `redis://127.0.0.1:6379/0?prefix=${database}`];
let servers: { child: ChildProcessWithoutNullStreams; url: string }[] = [];
let apiKey = '';
const nodeUrl = (n: number) => `${cluster.servers[n - 1]}/${database}`;
/** The request-log lines of failed requests (with their cause), per server, for assertion messages. */
const failures: string[][] = [[], [], []];
const serveOn = async (n: number) => {
  const server = await startServe(['--database', nodeUrl(n), '--port', '0', '--host', '127.0.0.1', ...redisArgs], env);
  onLines(server.child, (line) => {
    if (line.includes('"status":5') || line.includes('error')) failures[n - 1]!.push(line);
  });
  return server;
};

// The cluster, its three instances and the account every test uses are made here, not in the
// first test, so any one test can run alone (`vitest -t`).
beforeAll(async () => {
  cluster = await startGalera();
  servers = await Promise.all([serveOn(1), serveOn(2), serveOn(3)]);
  const created = await runCli(['account', 'create', '--name', 'Galera', '--owner-email', 'o@galera.test', '--service-plan', 'unlimited', '--database', nodeUrl(3)], env);
  if (created.code !== 0) throw new Error(`account create failed: ${created.stderr}`);
  apiKey = (JSON.parse(created.stdout) as { apiKey: string }).apiKey;
}, 420_000);

afterAll(async () => {
  for (const server of servers) {
    server.child.kill('SIGTERM');
    await exited(server.child);
  }
  await cluster?.sql(1, `DROP DATABASE IF EXISTS \`${database}\``).catch(() => undefined);
  await cluster?.stop();
  await rm(env.SVC_OUTBOX_DIR, { recursive: true, force: true });
}, 120_000);

interface Answer {
  status: number;
  body: any;
  ms: number;
}
async function call(server: number, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(`${servers[server]!.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, ms: performance.now() - started };
}
const api = (server: number, method: string, path: string, body?: unknown) => call(server, method, `/v1${path}`, body, { authorization: `Bearer ${apiKey}` });
const client = (server: number, action: string, body: unknown) => call(server, 'POST', `/v1/licenses/${action}`, body);
const deliver = (server: number, integrationId: string, event: Record<string, unknown>) => {
  const raw = JSON.stringify(event);
  return call(server, 'POST', `/v1/webhooks/provider_a/${integrationId}`, raw, { 'Provider-A-Signature': signProviderA(raw, SECRET) });
};

async function product(keyPrefix: string, maxActivations: number) {
  const created = await api(0, 'POST', '/products', { name: `Galera ${keyPrefix}`, keyPrefix });
  expect(created.status).toBe(201);
  const plan = await api(0, 'POST', `/products/${created.body.id}/plans`, { code: 'lifetime', kind: 'perpetual', maxActivations });
  expect(plan.status).toBe(201);
  return { productId: created.body.id as string, planId: plan.body.id as string };
}
async function license(server: number, planId: string, email: string) {
  const created = await api(server, 'POST', '/licenses', { plan: planId, email });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; key: string };
}

describe('on a 3-node Galera cluster', () => {
  test('three instances started at once on a fresh database (one per node) migrate it once and all come up', async () => {
    // The three were started at once by beforeAll, on a database none of them had seen.
    const versions = await cluster.sql<{ version: number }[]>(2, `SELECT version FROM \`${database}\`.schema_migrations ORDER BY version`);
    expect(versions.length).toBeGreaterThan(0);
    expect(versions.map((v) => v.version)).toEqual([...new Set(versions.map((v) => v.version))]);
    for (let s = 0; s < 3; s++) {
      expect(await call(s, 'GET', '/ready')).toMatchObject({ status: 200, body: { status: 'ready' } });
      expect((await api(s, 'GET', '/account')).status).toBe(200);
    }
  }, 120_000);

  test("a unit of work aborted by another node's write in the middle of its commit keeps none of its writes", async () => {
    // MariaDB answers a transaction aborted while a statement of a multi-statement query runs (a
    // write set from another node wanted one of its locks) with a deadlock, but runs the query's
    // remaining statements in a new transaction, COMMIT included. A unit of work sends its held
    // writes and its COMMIT in one query: the writes held after the abort were committed without
    // the rest of the unit (a webhook's delivery-log row then clashed at every rerun: 409 conflict).
    const store = createMySqlStore(nodeUrl(1), { poolSize: 2, maxRetries: 0 });
    const counter = (id: string): CounterRecord => ({ id, accountId: 'acc_bf', count: 1, expiresAt: '2030-01-01T00:00:00Z' });
    const table = `\`${database}\`.\`${tables.counters.table}\``;
    try {
      await store.transaction((tx) => tx.insert('counters', counter('bf_locked')));
      const unit = rawUnitOf(store)(async (run, hold) => {
        const tx = createTx(run, { hold });
        await tx.get('counters', 'bf_locked', { lock: true });
        await tx.insert('counters', counter('bf_before'), { defer: true });
        // A statement the node is still running when the abort comes (on a loaded machine, any).
        hold({ sql: 'DO SLEEP(4)', values: [], collection: 'counters' });
        await tx.insert('counters', counter('bf_after'), { defer: true });
      });
      const failure = unit.then(() => null, (error: unknown) => error);
      // Meanwhile node 2 writes the row the unit locked: node 1 aborts the unit to apply it.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await cluster.sql(2, `UPDATE ${table} SET \`doc\` = JSON_SET(\`doc\`, '$.count', 2) WHERE \`id\` = 'bf_locked'`);
      expect(await failure).toMatchObject({ name: 'MySqlStoreError', code: 'store_busy' });
      const kept = await cluster.sql<{ id: string }[]>(1, `SELECT \`id\` FROM ${table} WHERE \`id\` IN ('bf_before', 'bf_after')`);
      expect(kept).toEqual([]);
    } finally {
      await store.close();
    }
  }, 60_000);

  test('an update of a row read locked is written only over the row as read, so a lock the node lost cannot write over another commit', async () => {
    // The mechanism itself (a lost lock fails the unit) is tested on one MariaDB in
    // mysql-locked-compare.test.ts; here: the store turns it on for a Galera node.
    const wire = await createWireRecorder({ host: '127.0.0.1', port: Number(new URL(cluster.servers[0]!).port) });
    const store = createMySqlStore(`mysql://root@127.0.0.1:${wire.port}/${database}`, { poolSize: 1 });
    const counter = (count: number): CounterRecord => ({ id: 'cmp_locked', accountId: 'acc_cmp', count, expiresAt: '2030-01-01T00:00:00Z' });
    try {
      await store.transaction((tx) => tx.insert('counters', counter(1)));
      wire.clear();
      await store.transaction(async (tx) => {
        const read = (await tx.get('counters', 'cmp_locked', { lock: true }))!;
        await tx.update('counters', { ...read, count: read.count + 1 }, { defer: true });
      });
      const updates = wire.requests().flatMap((r) => r.sql.split(';\n')).filter((sql) => sql.startsWith('UPDATE'));
      expect(updates).toHaveLength(1);
      // The held batch goes as a text query: the values are in the statement.
      const [, compared] = updates[0]!.split(" WHERE `id` = 'cmp_locked' AND `doc` = ");
      expect(compared).toMatch(/count\\?": ?1[,}]/);
      expect(await store.transaction(async (tx) => (await tx.get('counters', 'cmp_locked'))?.count)).toBe(2);
    } finally {
      await store.close();
      await wire.close();
    }
  }, 60_000);

  test('serve refuses the database rate limiter on a Galera node and names --redis-url', async () => {
    const refused = await runCli(['serve', '--database', nodeUrl(1), '--port', '0'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Galera');
    expect(refused.stderr).toContain('--redis-url');
  }, 60_000);

  test('parallel activations spread over the three nodes never exceed the activation limit', async () => {
    const { productId, planId } = await product('GA', 3);
    for (let round = 0; round < 5; round++) {
      const { id, key } = await license(round % 3, planId, `limit${round}@galera.test`);
      const answers = await Promise.all(
        Array.from({ length: 15 }, (_, i) => client(i % 3, 'activate', { product: productId, key, fingerprint: fingerprint(productId, `${round}-${i}`) })),
      );
      // On a failure, what the cluster holds tells an over-allocation from an answer without its row.
      const held = async () => ({
        statuses: answers.map((a) => a.status),
        rows: await cluster.sql(1, `SELECT \`id\` FROM \`${database}\`.\`activations\` WHERE \`license_id\` = ?`, [id]),
        activationCount: (await api(0, 'GET', `/licenses/${id}`)).body.activationCount,
        failures,
      });
      const won = answers.filter((a) => a.status === 200);
      expect(won, won.length === 3 ? '' : JSON.stringify(await held())).toHaveLength(3);
      expect(answers.filter((a) => a.status === 409).every((a) => a.body.error.code === 'activation_limit')).toBe(true);
      expect(answers.filter((a) => a.status !== 200 && a.status !== 409)).toEqual([]);
    }
  }, 120_000);

  test('floating seats: machines racing for the last seats through the three nodes never hold more live leases than the limit', async () => {
    const created = await api(0, 'POST', '/products', { name: 'Galera floating', keyPrefix: 'GF' });
    const productId = created.body.id as string;
    const plan = await api(1, 'POST', `/products/${productId}/plans`, { code: 'team', kind: 'perpetual', seatMode: 'floating', maxActivations: 3 });
    expect(plan.status).toBe(201);
    for (let round = 0; round < 5; round++) {
      const { id, key } = await license(round % 3, plan.body.id, `floating${round}@galera.test`);
      // One seat held already: two are free for 15 machines.
      expect((await client(round % 3, 'activate', { product: productId, key, fingerprint: fingerprint(productId, `f${round}-held`) })).status).toBe(200);
      const answers = await Promise.all(
        Array.from({ length: 15 }, (_, i) => client(i % 3, 'activate', { product: productId, key, fingerprint: fingerprint(productId, `f${round}-${i}`) })),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(2);
      expect(answers.filter((a) => a.status !== 200).every((a) => a.status === 409 && a.body.error.code === 'activation_limit')).toBe(true);
      expect((await api((round + 1) % 3, 'GET', `/licenses/${id}`)).body).toMatchObject({ liveLeases: 3, activationCount: 3 });
    }
  }, 120_000);

  test('the same machine activated through all three nodes at once makes one activation', async () => {
    const { productId, planId } = await product('GS', 5);
    const { id, key } = await license(1, planId, 'same@galera.test');
    const body = { product: productId, key, fingerprint: fingerprint(productId, 'same') };
    const answers = await Promise.all(Array.from({ length: 15 }, (_, i) => client(i % 3, 'activate', body)));
    expect(answers.map((a) => a.status)).toEqual(Array(15).fill(200));
    expect(new Set(answers.map((a) => a.body.activation)).size).toBe(1);
    for (let s = 0; s < 3; s++) expect((await api(s, 'GET', `/licenses/${id}`)).body.activationCount).toBe(1);
  }, 60_000);

  test('one webhook delivered to all three nodes at once is processed exactly once', async () => {
    const { productId } = await product('GW', 1);
    const integration = await api(0, 'POST', '/integrations', { provider: 'provider_a', product: productId, webhookSecret: SECRET, priceMap: { [LIFETIME_PRICE]: 'lifetime' } });
    expect(integration.status).toBe(201);
    const customer = fixtureJson('provider_a', 'customer.created');
    expect((await deliver(1, integration.body.id, customer)).status).toBe(200);
    const order = fixtureJson('provider_a', 'transaction.completed');
    const answers = await Promise.all(Array.from({ length: 15 }, (_, i) => deliver(i % 3, integration.body.id, order)));
    expect(answers.map((a) => a.status)).toEqual(Array(15).fill(200));
    expect(answers.filter((a) => a.body.result === 'processed')).toHaveLength(1);
    expect(answers.filter((a) => a.body.result === 'duplicate')).toHaveLength(14);
    const licenses = await api(2, 'GET', `/licenses?product=${productId}`);
    expect(licenses.body.data).toHaveLength(1);
  }, 60_000);

  test('a revoke racing subscription payments on other nodes ends revoked', async () => {
    const created = await api(0, 'POST', '/products', { name: 'Galera subs', keyPrefix: 'GR' });
    const productId = created.body.id as string;
    expect((await api(0, 'POST', `/products/${productId}/plans`, { code: 'pro', kind: 'subscription' })).status).toBe(201);
    const integration = await api(1, 'POST', '/integrations', { provider: 'provider_a', product: productId, webhookSecret: SECRET, priceMap: { [PRO_PRICE]: 'pro' } });
    const integrationId = integration.body.id as string;
    expect((await deliver(0, integrationId, fixtureJson('provider_a', 'customer.created'))).status).toBe(200);
    expect((await deliver(1, integrationId, fixtureJson('provider_a', 'transaction.completed.subscription'))).status).toBe(200);
    const [lic] = (await api(2, 'GET', `/licenses?product=${productId}`)).body.data as { id: string }[];
    const payments = Array.from({ length: 8 }, (_, i) => {
      const name = ['transaction.completed.subscription', 'subscription.activated', 'subscription.updated', 'subscription.resumed'][i % 4]!;
      const event = fixtureJson('provider_a', name);
      event.event_id = `evt_race_${i}`;
      event.occurred_at = new Date(Date.parse(event.occurred_at as string) + (i + 1) * 60_000).toISOString();
      return event;
    });
    const [revoke] = await Promise.all([api(0, 'POST', `/licenses/${lic!.id}/revoke`), ...payments.map((event, i) => deliver(1 + (i % 2), integrationId, event))]);
    expect(revoke.status).toBe(200);
    for (let s = 0; s < 3; s++) expect((await api(s, 'GET', `/licenses/${lic!.id}`)).body.status).toBe('revoked');
  }, 60_000);

  test('a key rotated through one node signs at once on the others', async () => {
    const { productId, planId } = await product('GK', 10);
    const { key } = await license(0, planId, 'rotate@galera.test');
    const machine = { product: productId, key, fingerprint: fingerprint(productId, 'rot') };
    expect((await client(1, 'activate', machine)).status).toBe(200);
    expect((await api(0, 'POST', `/products/${productId}/keys`)).status).toBe(201);
    expect((await api(0, 'POST', `/products/${productId}/keys/k2/activate`)).status).toBe(200);
    for (const s of [1, 2]) {
      const validated = await client(s, 'validate', machine);
      expect(validated.status).toBe(200);
      expect(decodeCertificate(validated.body.certificate)).toMatchObject({ ok: true, kid: 'k2' });
    }
  }, 60_000);

  test('revokes of one product through the three nodes at once each take a seq of their own: the served list counts them all', async () => {
    // Issue 29: the list's seq lives in one row per product (product_revocations); writes of it on
    // different nodes conflict at certification, and the loser runs again, so no seq is taken twice.
    const { productId, planId } = await product('GV', 10);
    const made = await Promise.all(Array.from({ length: 12 }, (_, i) => license(i % 3, planId, `rvl${i}@galera.test`)));
    const answers = await Promise.all(made.map((l, i) => api(i % 3, 'POST', `/licenses/${l.id}/revoke`)));
    expect(answers.filter((a) => a.status !== 200).map((a) => [a.status, a.body])).toEqual([]);
    const keys = await api(0, 'GET', `/products/${productId}/keys`);
    const publicKeys = Object.fromEntries(keys.body.data.map((k: { kid: string; publicKey: string }) => [k.kid, k.publicKey]));
    for (let s = 0; s < 3; s++) {
      const res = await fetch(`${servers[s]!.url}/v1/products/${productId}/revocations`);
      const checked = await verifyRevocationList((await res.text()).trimEnd(), { publicKeys, product: productId });
      if (checked.outcome !== 'valid') throw new Error(`node ${s + 1} serves a list that is ${checked.outcome}`);
      expect([checked.list.seq, checked.list.licenseCount]).toEqual([12, 12]);
    }
  }, 60_000);

  test('read-your-writes: a write acknowledged by one node is seen by the next request to another', async () => {
    const { productId, planId } = await product('GY', 1000);
    const { key } = await license(0, planId, 'ryw@galera.test');
    const failures: string[] = [];
    for (let i = 0; i < 60; i++) {
      const machine = { product: productId, key, fingerprint: fingerprint(productId, `ryw-${i}`) };
      const activated = await client(i % 3, 'activate', machine);
      if (activated.status !== 200) failures.push(`activate ${activated.status}`);
      const validated = await client((i + 1) % 3, 'validate', machine);
      if (validated.status !== 200) failures.push(`validate after activate: ${validated.status} ${JSON.stringify(validated.body)}`);
      const created = await license(i % 3, planId, `ryw${i}@galera.test`);
      const read = await api((i + 2) % 3, 'GET', `/licenses/${created.id}`);
      if (read.status !== 200) failures.push(`GET after create: ${read.status}`);
    }
    // A purchase's customer announced through one node, its order paid through the next at once:
    // the order finds the customer (the webhook unit's first query reads before it writes).
    const hooks = await product('GH', 1);
    const integration = await api(0, 'POST', '/integrations', { provider: 'provider_a', product: hooks.productId, webhookSecret: SECRET, priceMap: { [LIFETIME_PRICE]: 'lifetime' } });
    expect(integration.status).toBe(201);
    const purchase = async (i: number) => {
      const customer = fixtureJson('provider_a', 'customer.created');
      customer.event_id = `evt_ryw_c_${i}`;
      customer.data.id = `ctm_ryw_${i}`;
      customer.data.email = `buyer${i}@galera.test`;
      const order = fixtureJson('provider_a', 'transaction.completed');
      order.event_id = `evt_ryw_t_${i}`;
      order.data.id = `txn_ryw_${i}`;
      order.data.customer_id = `ctm_ryw_${i}`;
      const announced = await deliver(i % 3, integration.body.id, customer);
      if (announced.status !== 200) failures.push(`customer.created: ${announced.status} ${JSON.stringify(announced.body)}`);
      const paid = await deliver((i + 1) % 3, integration.body.id, order);
      if (paid.status !== 200) failures.push(`transaction.completed after customer.created: ${paid.status} ${JSON.stringify(paid.body)}`);
    };
    // 32 purchases in flight, 320 in all: under load a node applies the others' commits later (the
    // order's read missed its customer when the unit's first query began with its claim's insert).
    let next = 0;
    await Promise.all(Array.from({ length: 32 }, async () => {
      while (next < 320) await purchase(next++);
    }));
    expect(failures).toEqual([]);
    // A revoke through one node is refused at once through the others.
    const revoked = await license(0, planId, 'revoked@galera.test');
    const machine = { product: productId, key: revoked.key, fingerprint: fingerprint(productId, 'rv') };
    expect((await client(1, 'activate', machine)).status).toBe(200);
    expect((await api(2, 'POST', `/licenses/${revoked.id}/revoke`)).status).toBe(200);
    const refused = await client(0, 'validate', machine);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('license_revoked');
  }, 120_000);

  // Issue 28: notifications sent by the three instances' dispatchers (the case lives with the
  // notification tests). It runs before the node kill: its promise, one delivery each, is for a run
  // without crashes; a crash mid-send may send one again (at-least-once, docs/notifications.md).
  notificationsOnGalera(() => cluster);

  test('kill -9 of one node under write load: the others keep answering, its instance fails fast and recovers, no acknowledged write is lost', async () => {
    const { productId, planId } = await product('GN', 100_000);
    const { key } = await license(0, planId, 'kill@galera.test');
    const acknowledged: string[] = [];
    const survivorLatencies: number[] = [];
    let stop = false;
    let n = 0;
    // Write load through the two surviving nodes' instances.
    const load = Promise.all(
      [0, 1, 0, 1].map(async (s) => {
        while (!stop) {
          const answer = await client(s, 'activate', { product: productId, key, fingerprint: fingerprint(productId, `kill-${n++}`) });
          survivorLatencies.push(answer.ms);
          if (answer.status === 200) acknowledged.push(answer.body.activation as string);
        }
      }),
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await cluster.kill(3);
      // The instance on the dead node: 500 within about 2 s, then at once; /ready says 503.
      const first = await client(2, 'activate', { product: productId, key, fingerprint: fingerprint(productId, 'dead') });
      expect(first.status).toBe(500);
      expect(first.body.error.code).toBe('internal_error');
      expect(first.ms).toBeLessThan(3000);
      const notReady = await call(2, 'GET', '/ready');
      expect(notReady.status).toBe(503);
      expect(notReady.ms).toBeLessThan(2500);
      // Survivors keep answering once the cluster has evicted the dead node.
      await new Promise((resolve) => setTimeout(resolve, 8000));
      const acknowledgedWhileDown = acknowledged.length;
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(acknowledged.length).toBeGreaterThan(acknowledgedWhileDown);
      const stall = Math.max(...survivorLatencies);
      process.stdout.write(`galera node kill: longest survivor request ${Math.round(stall)} ms\n`);
      expect(stall).toBeLessThan(10_000);
      // The node rejoins; its instance recovers by itself.
      await cluster.heal();
      let ready = await call(2, 'GET', '/ready');
      for (const deadline = Date.now() + 20_000; ready.status !== 200 && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        ready = await call(2, 'GET', '/ready');
      }
      expect(ready.status).toBe(200);
    } finally {
      // The load ends first: it updates the same license row through two other nodes, and a third
      // writer to that row would race them at certification (retried, but boundedly).
      stop = true;
      await load;
    }
    failures[2]!.length = 0;
    // The first write through the rejoined node's instance once /ready says 200 succeeds. (It
    // used to fail in about 1 run of 6: the rejoin was a full rsync SST, whose donor stayed JOINED
    // with its applier stuck behind a local COMMIT and held the whole cluster in flow control;
    // the node now rejoins by IST, see scripts/galera-start.sh and docs/decisions.md.)
    const back = await client(2, 'activate', { product: productId, key, fingerprint: fingerprint(productId, 'back') });
    expect(back.status, failures[2]!.join('\n')).toBe(200);
    // Every acknowledged activation is on all three nodes.
    for (const node of [1, 2, 3]) {
      const rows = await cluster.sql<{ id: string }[]>(node, `SELECT id FROM \`${database}\`.activations`);
      const stored = new Set(rows.map((r) => r.id));
      expect(acknowledged.filter((id) => !stored.has(id)), `node ${node}`).toEqual([]);
    }
  }, 180_000);
});
