import { storeSchema } from '@svc-licensing/license-engine';
import type { Collection } from '@svc-licensing/license-engine';
import { afterEach, describe, expect, test } from 'vitest';
import { createMySqlStore, migrate } from '../../src/stores/mysql/index.js';
import { migrations } from '../../src/stores/mysql/migrations.js';
import { createTestDatabase, mysqlServerUrl } from '../support/mysql-database.js';
import type { TestDatabase } from '../support/mysql-database.js';

const databases: TestDatabase[] = [];
const fresh = async () => {
  const db = await createTestDatabase('migrate');
  databases.push(db);
  return db;
};
afterEach(async () => {
  for (const db of databases.splice(0)) await db.drop();
});

const versions = migrations.map((m) => m.version);
const latest = Math.max(...versions);
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

describe('migrate', () => {
  test('creates a table per collection with a column for every field the engine filters on', async () => {
    const db = await fresh();
    expect(await migrate(db.url)).toEqual({ applied: versions, version: latest });
    const columns = await db.admin<{ t: string; c: string }[]>(
      'SELECT TABLE_NAME AS t, COLUMN_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ?',
      [db.name],
    );
    const have = new Set(columns.map((r) => `${r.t}.${r.c}`));
    for (const [collection, schema] of Object.entries(storeSchema) as [Collection, (typeof storeSchema)[Collection]][]) {
      const fields = [...schema.indexed, ...schema.unique.flat(), ...('searchable' in schema ? schema.searchable : [])];
      for (const field of ['id', 'doc', ...fields]) expect(have, `${collection}.${field}`).toContain(`${snake(collection)}.${snake(field)}`);
    }
  });

  test('declares every unique key of the store schema as a unique index', async () => {
    const db = await fresh();
    await migrate(db.url);
    const rows = await db.admin<{ t: string; k: string; c: string }[]>(
      'SELECT TABLE_NAME AS t, INDEX_NAME AS k, COLUMN_NAME AS c FROM information_schema.STATISTICS ' +
        'WHERE TABLE_SCHEMA = ? AND NON_UNIQUE = 0 ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX',
      [db.name],
    );
    const unique = new Map<string, string[]>();
    for (const r of rows) unique.set(`${r.t}.${r.k}`, [...(unique.get(`${r.t}.${r.k}`) ?? []), r.c]);
    const keys = [...unique.entries()].map(([name, cols]) => `${name.split('.')[0]}(${cols.join(',')})`);
    for (const [collection, schema] of Object.entries(storeSchema)) {
      for (const key of schema.unique) expect(keys).toContain(`${snake(collection)}(${key.map(snake).join(',')})`);
    }
  });

  test('links licenses and activations to their parents with foreign keys', async () => {
    const db = await fresh();
    await migrate(db.url);
    const rows = await db.admin<{ t: string; c: string; p: string }[]>(
      'SELECT TABLE_NAME AS t, COLUMN_NAME AS c, REFERENCED_TABLE_NAME AS p FROM information_schema.KEY_COLUMN_USAGE ' +
        'WHERE TABLE_SCHEMA = ? AND REFERENCED_TABLE_NAME IS NOT NULL',
      [db.name],
    );
    const links = rows.map((r) => `${r.t}.${r.c}->${r.p}`);
    expect(links).toEqual(
      expect.arrayContaining([
        'licenses.account_id->accounts',
        'licenses.product_id->products',
        'licenses.plan_id->plans',
        'licenses.customer_id->customers',
        'activations.license_id->licenses',
      ]),
    );
  });

  test('running again applies nothing and keeps the data', async () => {
    const db = await fresh();
    await migrate(db.url);
    await db.admin(`INSERT INTO \`${db.name}\`.accounts (id, doc) VALUES ('acc_1', '{"id":"acc_1"}')`);
    expect(await migrate(db.url)).toEqual({ applied: [], version: latest });
    expect(await db.admin<{ n: number }[]>(`SELECT COUNT(*) AS n FROM \`${db.name}\`.accounts`)).toEqual([{ n: 1 }]);
  });

  test('version 60 moves each product\'s revocation list position out of its document into its own row; an existing database upgrades', async () => {
    const db = await fresh();
    // A database at version 56: every migration before 60 applied, products written with the position in their documents.
    await db.admin(`USE \`${db.name}\``);
    await db.admin(
      'CREATE TABLE `schema_migrations` (`version` INT NOT NULL, `name` VARCHAR(191) NOT NULL, `applied_at` TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (`version`))',
    );
    for (const m of migrations.filter((m) => m.version < 60)) {
      for (const statement of m.statements) await db.admin(statement);
      await db.admin('INSERT INTO `schema_migrations` (`version`, `name`) VALUES (?, ?)', [m.version, m.name]);
    }
    const product = (id: string, position: object) =>
      JSON.stringify({ id, accountId: 'acc_1', name: id, keyPrefix: 'K-', graceDays: 0, offlineDays: 7, ...position, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' });
    await db.admin("INSERT INTO `accounts` (`id`, `doc`) VALUES ('acc_1', '{\"id\":\"acc_1\"}')");
    await db.admin("INSERT INTO `products` (`id`, `account_id`, `doc`) VALUES ('prd_listed', 'acc_1', ?), ('prd_never', 'acc_1', ?)", [
      product('prd_listed', { revocationSeq: 7, revocationsAt: 1_900_000_000 }),
      product('prd_never', {}),
    ]);

    expect((await migrate(db.url)).applied).toEqual(versions.filter((v) => v >= 60));
    const moved = async () => ({
      rows: await db.admin<{ product_id: string; seq: number | null; issued_at: number | null }[]>(
        'SELECT `product_id`, `seq`, `issued_at` FROM `product_revocations` ORDER BY `product_id`',
      ),
      docs: (await db.admin<{ doc: string }[]>('SELECT `doc` FROM `products` ORDER BY `id`')).map((r) => JSON.parse(r.doc) as Record<string, unknown>),
    });
    const after = await moved();
    expect(after.rows).toEqual([
      { product_id: 'prd_listed', seq: 7, issued_at: 1_900_000_000 },
      { product_id: 'prd_never', seq: null, issued_at: null },
    ]);
    expect(after.docs.map((d) => d.name)).toEqual(['prd_listed', 'prd_never']);
    expect(after.docs.some((d) => 'revocationSeq' in d || 'revocationsAt' in d)).toBe(false);
    // Each statement is safe to run again (a crash before the version row): nothing changes.
    for (const statement of migrations.find((m) => m.version === 60)!.statements) await db.admin(statement);
    expect(await moved()).toEqual(after);

    // The store reads the position back into the record, and the next change of the list takes the next seq.
    const store = createMySqlStore(db.url, { poolSize: 1 });
    try {
      const read = await store.transaction(async (tx) => [await tx.get('products', 'prd_listed'), await tx.get('products', 'prd_never')]);
      expect([read[0]?.revocationSeq, read[0]?.revocationsAt, read[0]?.name]).toEqual([7, 1_900_000_000, 'prd_listed']);
      expect(read[1]).not.toHaveProperty('revocationSeq');
      expect(read[1]).not.toHaveProperty('revocationsAt');
      await store.transaction((tx) =>
        tx.recordRevocationEntry!({ id: 'rve_1', accountId: 'acc_1', productId: 'prd_listed', licenseId: 'lic_1', fingerprint: null, freedAt: null, until: 1_930_000_000 }, 1_900_000_100),
      );
      const next = await store.transaction((tx) => tx.get('products', 'prd_listed'));
      expect([next?.revocationSeq, next?.revocationsAt]).toEqual([8, 1_900_000_100]);
    } finally {
      await store.close();
    }
  });

  test('instances migrating at once take turns: every version is recorded once', async () => {
    const db = await fresh();
    const results = await Promise.all([migrate(db.url), migrate(db.url), migrate(db.url)]);
    expect(results.flatMap((r) => r.applied)).toEqual(versions);
    expect(await db.admin(`SELECT version FROM \`${db.name}\`.schema_migrations ORDER BY version`)).toEqual(versions.map((version) => ({ version })));
  });

  test('creates the database named in the URL when it is missing', async () => {
    const db = await fresh();
    await db.admin(`DROP DATABASE \`${db.name}\``);
    await migrate(db.url);
    expect(await db.admin(`SELECT COUNT(*) AS n FROM \`${db.name}\`.schema_migrations`)).toEqual([{ n: versions.length }]);
  });

  test('a store started with migrate: false refuses a database that was never migrated', async () => {
    const db = await fresh();
    const store = createMySqlStore(db.url, { migrate: false, poolSize: 1 });
    try {
      await expect(store.ready()).rejects.toMatchObject({ name: 'MySqlStoreError' });
      await migrate(db.url);
      await expect(store.ready()).resolves.toBeUndefined();
    } finally {
      await store.close();
    }
  });

  test('a store migrates by itself before its first transaction', async () => {
    const db = await fresh();
    const store = createMySqlStore(db.url, { poolSize: 1 });
    try {
      await store.transaction((tx) => tx.insert('accounts', { id: 'acc_1' } as never));
      expect(await db.admin(`SELECT MAX(version) AS v FROM \`${db.name}\`.schema_migrations`)).toEqual([{ v: latest }]);
    } finally {
      await store.close();
    }
  });

  test('a mariadb:// URL works like mysql://', async () => {
    const db = await fresh();
    const url = db.url.replace(/^mysql:/, 'mariadb:');
    expect((await migrate(url)).version).toBe(latest);
    const store = createMySqlStore(url, { poolSize: 1 });
    try {
      await store.transaction((tx) => tx.insert('accounts', { id: 'acc_m' } as never));
      expect(await store.transaction(async (tx) => (await tx.get('accounts', 'acc_m'))?.id)).toBe('acc_m');
    } finally {
      await store.close();
    }
  });

  test('a URL without a database name is refused with a clear error', () => {
    expect(() => createMySqlStore(mysqlServerUrl)).toThrow(/names no database/);
  });

  test('store options in the URL query string are read, and a bad one is refused', async () => {
    const db = await fresh();
    const store = createMySqlStore(`${db.url}?poolSize=2&queryTimeoutMs=4000`);
    try {
      // Five parallel units on a pool of two: all complete, and at most two connections were opened.
      await Promise.all(Array.from({ length: 5 }, (_, i) => store.transaction((tx) => tx.insert('counters', { id: `c${i}`, accountId: 'a', count: 1, expiresAt: 'x' }))));
      const [{ n }] = await db.admin<[{ n: number }]>('SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()', [db.name]);
      expect(n).toBeLessThanOrEqual(2);
    } finally {
      await store.close();
    }
    expect(() => createMySqlStore(`${db.url}?poolSize=many`)).toThrow(/poolSize in the database URL must be a whole number/);
  });
});
