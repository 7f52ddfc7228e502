import { createMemoryStore } from '@svc-licensing/license-engine';
import type { Store } from '@svc-licensing/license-engine';
import type { StoreChoice } from '../config.js';
import { openEmbeddedStore } from './embedded/index.js';

export type { StoreChoice } from '../config.js';

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /** The embedded store could not write its journal: the process should exit and be restarted. */
  onFailure?: (error: unknown) => void;
}

/**
 * Opens the store a configuration chooses: the embedded store in a data folder (the default),
 * the memory store (nothing kept), or MySQL/MariaDB (loaded only when used).
 *
 * @example
 * ```ts
 * const store = await openStore({ kind: 'embedded', dataDir: './data' });
 * const engine = createLicenseEngine({ store, clock: systemClock, random: cryptoRandom, ids, secrets });
 * ```
 */
export async function openStore(choice: StoreChoice, options: OpenStoreOptions = {}): Promise<Store> {
  switch (choice.kind) {
    case 'embedded':
      return openEmbeddedStore(choice.dataDir, options.onFailure ? { onFailure: options.onFailure } : {});
    case 'memory':
      return createMemoryStore();
    case 'mysql': {
      // Loaded only when used: the embedded default never loads mysql2.
      const { createMySqlStore } = await import('./mysql/index.js');
      const store = createMySqlStore(choice.url);
      try {
        await store.ready(); // fail at start-up on a bad URL; migrates the schema
      } catch (error) {
        await store.close().catch(() => undefined);
        throw error;
      }
      return store;
    }
  }
}

/**
 * Brings a MySQL/MariaDB database to the current schema (`svc-licensing migrate`).
 *
 * @example
 * ```ts
 * await migrateDatabase('mysql://root@127.0.0.1:3306/licensing');
 * ```
 */
export async function migrateDatabase(url: string): Promise<{ applied: number[]; version: number }> {
  const { migrate } = await import('./mysql/index.js');
  return migrate(url);
}
