import type { CounterRecord } from '@svc-licensing/license-engine';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RowDataPacket } from 'mysql2/promise';
import { createMySqlStore } from '../../src/stores/mysql/index.js';
import { rawUnitOf } from '../../src/stores/mysql/store.js';
import type { MySqlStore } from '../../src/stores/mysql/index.js';
import { createTestDatabase } from '../support/mysql-database.js';
import type { TestDatabase } from '../support/mysql-database.js';
import { startStoppableProxy } from '../support/stoppable-proxy.js';
import type { StoppableProxy } from '../support/stoppable-proxy.js';
import { holdRowLock } from '../support/row-lock.js';

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
  const lock = await holdRowLock(db.url, 'kept');
  try {
    setTimeout(lock.release, 2500);
    const waited = await timed(() => store.transaction((tx) => tx.get('counters', 'kept', { lock: true }).then((r) => r?.id)));
    expect(waited.error).toBeNull();
    expect(waited.value).toBe('kept');
    expect(waited.ms).toBeGreaterThan(2000);
  } finally {
    await lock.end();
  }
}, 20_000);

test('a probe that fails while statements are being answered does not open the circuit (a starved database still answering)', async () => {
  // A database too starved to take a new connection within the connect timeout, while its open
  // connections answer: the probe (a fresh connection) fails, but nothing may fail because of it.
  const starved = await startStoppableProxy({ host: '127.0.0.1', port: 3306 });
  const slowStore = createMySqlStore(`mysql://root@127.0.0.1:${starved.port}/${db.name}`, { poolSize: 4 });
  try {
    await slowStore.ready();
    const raw = rawUnitOf(slowStore);
    const select = (sql: string) => raw((run) => run<RowDataPacket[]>(sql, []));
    await Promise.all([select('SELECT 1'), select('SELECT 1')]); // two pooled connections, open
    await starved.holdNewConnections();
    let answering = true;
    const answers: unknown[] = [];
    // A statement that takes longer than the probe delay (the store probes), and quick ones
    // answered meanwhile on the other connection.
    const slow = select('SELECT SLEEP(3) AS `slept`').finally(() => (answering = false));
    const quick = (async () => {
      while (answering) {
        answers.push(await select('SELECT 1 AS `one`').catch((error: unknown) => error));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    expect(await slow).toEqual([{ slept: 0 }]);
    await quick;
    expect(answers.filter((a) => !Array.isArray(a))).toEqual([]);
    expect(await select('SELECT 2 AS `two`')).toEqual([{ two: 2 }]);
  } finally {
    await slowStore.close();
    await starved.stop();
  }
}, 20_000);
