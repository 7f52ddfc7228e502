import type { RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMySqlStore, rawUnitOf } from '../../src/stores/mysql/store.js';
import type { MySqlStore } from '../../src/stores/mysql/store.js';
import { createTestDatabase } from '../support/mysql-database.js';
import type { TestDatabase } from '../support/mysql-database.js';

// Read-only units on MySQL run autocommitted SELECTs on their own pool: writes are refused before
// they reach the database, and a read never keeps a snapshot that hides later commits.
let db: TestDatabase;
let store: MySqlStore;
beforeAll(async () => {
  db = await createTestDatabase('read_only');
  store = createMySqlStore(db.url, { poolSize: 1 });
  await store.ready();
});
afterAll(async () => {
  await store.close();
  await db.drop();
});

describe('mysql store read-only units', () => {
  test('a write in a read-only unit is refused and nothing is written', async () => {
    const attempt = store.transaction(async (tx) => {
      await tx.insert('accounts', { id: 'acc_ro' } as never);
    }, { readOnly: true });
    await expect(attempt).rejects.toThrow(/read-only unit/);
    const rows = await rawUnitOf(store)((run) => run<RowDataPacket[]>('SELECT COUNT(*) AS `n` FROM `accounts`', []));
    expect(Number(rows[0]!['n'])).toBe(0);
  });

  test('each read-only unit sees what was committed since the last one on the same connection', async () => {
    const name = async () => (await store.transaction((tx) => tx.get('accounts', 'acc_seen'), { readOnly: true }))?.name ?? null;
    expect(await name()).toBeNull();
    await store.transaction((tx) => tx.insert('accounts', { id: 'acc_seen', name: 'First' } as never));
    expect(await name()).toBe('First');
    await store.transaction(async (tx) => tx.update('accounts', { id: 'acc_seen', name: 'Second' } as never));
    expect(await name()).toBe('Second');
  });
});
