import type { Store } from '@svc-licensing/license-engine';
import { testStore } from '@svc-licensing/license-engine/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import { createMySqlStore, migrate } from '../../src/stores/mysql/index.js';
import { tables } from '../../src/stores/mysql/schema.js';
import { createTestDatabase } from '../support/mysql-database.js';
import type { TestDatabase } from '../support/mysql-database.js';

// Two databases of this run: `linked` has the real schema with its foreign keys, for the cases
// that go through the engine (which creates every parent first); `loose` has the foreign keys
// dropped, for the record-level cases, whose sample records point at parents that do not exist.
let linked: TestDatabase;
let loose: TestDatabase;

beforeAll(async () => {
  [linked, loose] = await Promise.all([createTestDatabase('conf'), createTestDatabase('conf')]);
  await Promise.all([migrate(linked.url), migrate(loose.url)]);
  const fks = await loose.admin<{ t: string; k: string }[]>(
    'SELECT TABLE_NAME AS t, CONSTRAINT_NAME AS k FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = ? AND CONSTRAINT_TYPE = ?',
    [loose.name, 'FOREIGN KEY'],
  );
  expect(fks.length).toBeGreaterThan(0);
  for (const { t, k } of fks) await loose.admin(`ALTER TABLE \`${loose.name}\`.\`${t}\` DROP FOREIGN KEY \`${k}\``);
});
afterAll(async () => {
  await Promise.all([linked?.drop(), loose?.drop()]);
});

/** Empties every table, so each case starts from an empty store as the suite requires. */
async function empty(db: TestDatabase): Promise<void> {
  await db.admin('SET FOREIGN_KEY_CHECKS = 0');
  for (const { table } of Object.values(tables)) await db.admin(`DELETE FROM \`${db.name}\`.\`${table}\``);
  await db.admin('SET FOREIGN_KEY_CHECKS = 1');
}

testStore('mysql', {
  async create(): Promise<Store> {
    const throughEngine = expect.getState().currentTestName?.includes('engine concurrency') ?? false;
    const db = throughEngine ? linked : loose;
    await empty(db);
    const store = createMySqlStore(db.url, { poolSize: 8 });
    await store.ready();
    return store;
  },
});
