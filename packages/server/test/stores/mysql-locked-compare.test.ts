import { StoreConflictError } from '@svc-licensing/license-engine';
import type { CounterRecord } from '@svc-licensing/license-engine';
import { createConnection } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMySqlStore, rawUnitOf } from '../../src/stores/mysql/store.js';
import type { MySqlStore } from '../../src/stores/mysql/store.js';
import { tables } from '../../src/stores/mysql/schema.js';
import { createTx } from '../../src/stores/mysql/tx.js';
import { createTestDatabase } from '../support/mysql-database.js';
import type { TestDatabase } from '../support/mysql-database.js';

// On Galera a node can lose a unit's row lock to a write set from another node without the unit
// hearing of it, its transaction going on as a new one (seen once as an activation over the limit
// under load). With `compareLocked` (the store sets it on Galera) an update of a row the unit read
// locked writes only over the row as read. The lost lock is made here by ending the transaction
// under the unit (ROLLBACK), which releases the lock exactly as such an abort does.
let db: TestDatabase;
let store: MySqlStore;
beforeAll(async () => {
  db = await createTestDatabase('lockcmp');
  store = createMySqlStore(db.url, { poolSize: 3, maxRetries: 0 });
  await store.ready();
});
afterAll(async () => {
  await store.close();
  await db.drop();
});

const counter = (id: string, count = 1): CounterRecord => ({ id, accountId: 'acc_l', count, expiresAt: '2030-01-01T00:00:00Z' });
const countOf = (id: string) => store.transaction(async (tx) => (await tx.get('counters', id))?.count);
const exists = async (id: string) => (await store.transaction((tx) => tx.get('counters', id))) !== null;
/** Another session's committed write of the counter's count, as another node's would be. */
async function writeElsewhere(id: string, count: number) {
  const connection = await createConnection({ uri: db.url });
  try {
    await connection.query(`UPDATE \`${tables.counters.table}\` SET \`doc\` = JSON_SET(\`doc\`, '$.count', ?) WHERE \`id\` = ?`, [count, id]);
  } finally {
    await connection.end();
  }
}

/** A unit that reads `id` locked, loses its lock while another session writes the row (`lose`), then adds one to what it read. */
const incrementAfter = (id: string, lose: boolean, defer: boolean) =>
  rawUnitOf(store)(async (run, hold) => {
    const tx = createTx(run, { hold, compareLocked: true });
    const read = (await tx.get('counters', id, { lock: true }))!;
    if (lose) {
      await run('ROLLBACK', []);
      await writeElsewhere(id, 7);
    }
    await tx.insert('counters', counter(`${id}_made`), { defer: true });
    await tx.update('counters', { ...read, count: read.count + 1 }, { defer });
  });

describe('an update of a row read locked, with compareLocked (Galera)', () => {
  for (const defer of [true, false]) {
    test(`fails the unit and keeps none of its writes when the lock was lost and the row changed (${defer ? 'held' : 'sent'})`, async () => {
      const id = `lost_${defer}`;
      await store.transaction((tx) => tx.insert('counters', counter(id)));
      const failure = await incrementAfter(id, true, defer).then(() => null, (error: unknown) => error);
      expect(StoreConflictError.is(failure)).toBe(true);
      expect(failure).toMatchObject({ collection: 'counters', index: 'unchanged' });
      expect(await countOf(id)).toBe(7);
      expect(await exists(`${id}_made`)).toBe(false);
    });
  }

  test('commits as any update while the lock holds, and again over its own write in the same unit', async () => {
    await store.transaction((tx) => tx.insert('counters', counter('kept')));
    await incrementAfter('kept', false, true);
    expect(await countOf('kept')).toBe(2);
    await rawUnitOf(store)(async (run, hold) => {
      const tx = createTx(run, { hold, compareLocked: true });
      const read = (await tx.get('counters', 'kept', { lock: true }))!;
      await tx.update('counters', { ...read, count: 10 }, { defer: true });
      await tx.update('counters', { ...read, count: 11 }, { defer: true });
      await tx.update('counters', { ...read, count: 12 });
    });
    expect(await countOf('kept')).toBe(12);
  });

  test('a row the unit inserted, and a row read without a lock, are updated as before', async () => {
    await store.transaction((tx) => tx.insert('counters', counter('plain')));
    await rawUnitOf(store)(async (run, hold) => {
      const tx = createTx(run, { hold, compareLocked: true });
      await tx.insert('counters', counter('fresh'));
      await tx.update('counters', counter('fresh', 3), { defer: true });
      const read = (await tx.get('counters', 'plain'))!;
      await writeElsewhere('plain', 5);
      await tx.update('counters', { ...read, count: 4 }, { defer: true });
    });
    expect(await countOf('fresh')).toBe(3);
    expect(await countOf('plain')).toBe(4);
  });
});
