import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createStorage } from 'unstorage';
import fsLiteDriver from 'unstorage/drivers/fs-lite';
import { lockDataDir } from './lock.js';
import { createEmbeddedStore } from './store.js';
import type { EmbeddedStore } from './store.js';

export { createEmbeddedStore } from './store.js';
export type { EmbeddedStore, EmbeddedStorageOptions } from './store.js';

/** Options of `openEmbeddedStore`. */
export interface EmbeddedDataDirOptions {
  /** Checkpoint once the journal holds this many bytes, or the last snapshot's size if larger (default 16 MiB). */
  checkpointBytes?: number;
  /** Also checkpoint this often while there are changes (default: only by size and on close). */
  checkpointIntervalMs?: number;
  /** Called once if the journal cannot be written (see `EmbeddedStorageOptions.onFailure`). */
  onFailure?: (error: unknown) => void;
}

/**
 * Opens (creating it if needed) the embedded store in a data folder: snapshots under
 * `records/snapshots/` (unstorage fs driver), the journal under `journal/`, and a `lock` file so
 * that only one process uses the folder at a time. Crash-safe: a killed process loses no
 * acknowledged write and never leaves half a transaction.
 *
 * @example
 * ```ts
 * const store = await openEmbeddedStore('./data');
 * try {
 *   await store.transaction((tx) => tx.count('licenses', {}));
 * } finally {
 *   await store.close();
 * }
 * ```
 */
export async function openEmbeddedStore(dataDir: string, options: EmbeddedDataDirOptions = {}): Promise<EmbeddedStore> {
  const dir = resolve(dataDir);
  const recordsDir = join(dir, 'records');
  const journalDir = join(dir, 'journal');
  await mkdir(recordsDir, { recursive: true, mode: 0o700 });
  await mkdir(journalDir, { recursive: true, mode: 0o700 });
  const unlock = await lockDataDir(dir);
  try {
    return await createEmbeddedStore({
      storage: createStorage({ driver: fsLiteDriver({ base: recordsDir }) }),
      journalDir,
      syncBase: recordsDir,
      onClose: unlock,
      ...options,
    });
  } catch (error) {
    await unlock();
    throw error;
  }
}
