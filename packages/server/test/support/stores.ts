import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@svc-licensing/license-engine';
import { afterAll } from 'vitest';
import { openEmbeddedStore } from '../../src/stores/embedded/index.js';
import { createMySqlStore, migrate, type MySqlStoreOptions } from '../../src/stores/mysql/index.js';
import { createTestDatabase, type TestDatabase } from './mysql-database.js';

/** Which real store the app under test runs on. */
export type StoreKind = 'embedded' | 'mysql';
export const STORE_KINDS: readonly StoreKind[] = ['embedded', 'mysql'];

/** An open store and how to close it and remove everything it left behind. */
export interface OpenedStore {
  /** The store now open. */
  store(): Store;
  /** Closes the store and opens the same data folder or database again. */
  reopen(): Promise<void>;
  /**
   * A second store on the same records, as another process of one deployment would open it: on
   * MariaDB a MySQL store with pools of its own on the same database; the embedded store itself
   * (one process owns a data folder). Closed by `close()`.
   */
  second(): Promise<Store>;
  /** Closes the store (and a second one) and removes what it left behind (the folder; the database goes after the file). */
  close(): Promise<void>;
  /** Where the records live, for tests that inspect the files or tables themselves. */
  location: { kind: 'embedded'; dir: string } | { kind: 'mysql'; db: TestDatabase };
}

/**
 * Tracks the open store of one place, reopening it on demand and closing it once. `openSecond`
 * opens another store on the same place; without it the second store is the store itself.
 */
async function reopenable(
  open: () => Promise<Store>,
  remove: () => Promise<void>,
  location: OpenedStore['location'],
  openSecond?: () => Promise<Store>,
): Promise<OpenedStore> {
  let store: Store | null = await open();
  let second: Store | null = null;
  const current = () => {
    if (store === null) throw new Error('the test store is closed');
    return store;
  };
  return {
    location,
    store: current,
    async second() {
      if (!openSecond) return current();
      second ??= await openSecond();
      return second;
    },
    async reopen() {
      const old = store;
      store = null;
      await old?.close();
      store = await open();
    },
    async close() {
      const old = store;
      const other = second;
      store = null;
      second = null;
      try {
        await Promise.all([old?.close(), other?.close()]);
      } finally {
        await remove();
      }
    },
  };
}

/**
 * The embedded store in a fresh temporary data folder of its own (locked, journalled, fsynced
 * like a real server's); closing it removes the folder.
 */
async function openEmbedded(): Promise<OpenedStore> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-http-'));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    return await reopenable(() => openEmbeddedStore(dir), remove, { kind: 'embedded', dir });
  } catch (error) {
    await remove();
    throw error;
  }
}

/**
 * One MariaDB database per test file, created and migrated on first use and dropped after the
 * file's tests, so parallel files and runs never see each other's rows. Every app in the file
 * gets its own account, so sharing the database within a file changes no answer.
 */
let database: Promise<TestDatabase> | null = null;
function fileDatabase(): Promise<TestDatabase> {
  database ??= createTestDatabase('http').then(async (db) => {
    try {
      await migrate(db.url);
      return db;
    } catch (error) {
      await db.drop();
      throw error;
    }
  });
  return database;
}
afterAll(async () => {
  const pending = database;
  database = null;
  if (pending) await (await pending).drop();
});

async function openMySql(options: MySqlStoreOptions): Promise<OpenedStore> {
  const db = await fileDatabase();
  const open = async () => {
    const store = createMySqlStore(db.url, options);
    try {
      await store.ready();
    } catch (error) {
      await store.close().catch(() => undefined);
      throw error;
    }
    return store;
  };
  return reopenable(open, async () => undefined, { kind: 'mysql', db }, open);
}

/** How a test store is opened. */
export interface TestStoreOptions {
  /** Options of the MySQL stores (pool size, retries); the embedded store has none. */
  mysql?: MySqlStoreOptions;
}

/** Opens a fresh store of `kind` for one app. */
export function openTestStore(kind: StoreKind, options: TestStoreOptions = {}): Promise<OpenedStore> {
  return kind === 'embedded' ? openEmbedded() : openMySql(options.mysql ?? {});
}
