import type { CounterRecord } from '@svc-licensing/license-engine';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createMySqlStore } from '../src/stores/mysql/index.js';
import type { MySqlStore } from '../src/stores/mysql/index.js';
import { createTestDatabase } from './support/mysql-database.js';
import type { TestDatabase } from './support/mysql-database.js';
import { startStoppableProxy } from './support/stoppable-proxy.js';
import type { StoppableProxy } from './support/stoppable-proxy.js';

// A silent partition: the proxy process between the store and MariaDB is stopped (SIGSTOP), so
// nothing is refused or reset, packets just go unanswered. The store runs with its defaults
// (connect timeout 1 s, probe after 1 s without an answer, statement timeout 10 s).
let db: TestDatabase;
let proxy: StoppableProxy;
let store: MySqlStore;
beforeAll(async () => {
  db = await createTestDatabase('partition');
  proxy = await startStoppableProxy({ host: '127.0.0.1', port: 3306 });
  store = createMySqlStore(`mysql://root@127.0.0.1:${proxy.port}/${db.name}`, { poolSize: 4 });
  await store.ready();
  await store.transaction((tx) => tx.insert('counters', counter('kept')));
});
afterAll(async () => {
  proxy?.resume();
  await store?.close();
  await proxy?.stop();
  await db?.drop();
});

const counter = (id: string): CounterRecord => ({ id, accountId: 'acc_p', count: 1, expiresAt: '2030-01-01T00:00:00Z' });
const read = (id: string) => store.transaction(async (tx) => (await tx.get('counters', id))?.id ?? null);
const readOnly = (id: string) => store.transaction(async (tx) => (await tx.get('counters', id))?.id ?? null, { readOnly: true });
/** How long a call took to settle, and how it settled. */
const timed = async (call: () => Promise<unknown>) => {
  const started = performance.now();
  const outcome = await call().then(
    (value) => ({ value, error: null as any }),
    (error: unknown) => ({ value: null, error: error as any }),
  );
  return { ms: performance.now() - started, ...outcome };
};

test('a silent partition fails calls in flight within about 2 s, later calls at once, and heals by itself', async () => {
  // Pooled connections open and idle on both pools, as in a running server.
  await Promise.all([read('kept'), read('kept'), readOnly('kept'), readOnly('kept')]);
  proxy.pause();
  try {
    const inFlight = await Promise.all([timed(() => read('kept')), timed(() => readOnly('kept')), timed(() => read('kept'))]);
    for (const call of inFlight) {
      expect(call.error).toMatchObject({ name: 'MySqlStoreError' });
      expect(['store_timeout', 'store_unavailable']).toContain(call.error.code);
      expect(call.ms).toBeLessThan(3000);
    }
    // Known down: answered at once, without waiting on the network (a connect attempt alone
    // would take the 1 s connect timeout; the bound leaves room for a loaded CI machine).
    for (let i = 0; i < 5; i++) {
      const call = await timed(() => read('kept'));
      expect(call.error).toMatchObject({ name: 'MySqlStoreError', code: 'store_unavailable' });
      expect(call.ms).toBeLessThan(500);
    }
  } finally {
    proxy.resume();
  }
  // Background probes notice the database is back (every half second).
  const deadline = Date.now() + 5000;
  let value: unknown = null;
  while (Date.now() < deadline) {
    value = await read('kept').catch(() => null);
    if (value === 'kept') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(value).toBe('kept');
}, 20_000);

test('a slow statement is not a partition: a lock wait passes the probe and ends normally', async () => {
  const blocker = createMySqlStore(db.url, { poolSize: 1 });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holding = blocker.transaction(async (tx) => {
    await tx.get('counters', 'kept', { lock: true });
    locked();
    await released;
  });
  try {
    await isLocked;
    setTimeout(release, 2500);
    const waited = await timed(() => store.transaction((tx) => tx.get('counters', 'kept', { lock: true }).then((r) => r?.id)));
    expect(waited.error).toBeNull();
    expect(waited.value).toBe('kept');
    expect(waited.ms).toBeGreaterThan(2000);
  } finally {
    release();
    await holding;
    await blocker.close();
  }
}, 20_000);
