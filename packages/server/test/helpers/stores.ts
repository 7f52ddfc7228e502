import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@svc-licensing/license-engine';
import { afterAll } from 'vitest';
import { openEmbeddedStore } from '../../src/stores/embedded/index.js';
import { createMySqlStore, migrate } from '../../src/stores/mysql/index.js';
import { createTestDatabase, type TestDatabase } from '../support/mysql-database.js';

/** Which real store the app under test runs on. */
export type StoreKind = 'embedded' | 'mysql';
export const STORE_KINDS: readonly StoreKind[] = ['embedded', 'mysql'];

/** An open store and how to close it and remove everything it left behind. */
export interface OpenedStore {
  store: Store;
  close(): Promise<void>;
}

/**
 * The embedded store in a fresh temporary data folder of its own (locked, journalled, fsynced
 * like a real server's); closing it removes the folder.
 */
async function openEmbedded(): Promise<OpenedStore> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-http-'));
  try {
    const store = await openEmbeddedStore(dir);
    return {
      store,
      async close() {
        try {
          await store.close();
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
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

async function openMySql(): Promise<OpenedStore> {
  const db = await fileDatabase();
  const store = createMySqlStore(db.url);
  try {
    await store.ready();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  return { store, close: () => store.close() };
}

/** Opens a fresh store of `kind` for one app. */
export function openTestStore(kind: StoreKind): Promise<OpenedStore> {
  return kind === 'embedded' ? openEmbedded() : openMySql();
}
