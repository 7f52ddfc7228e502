import type { Storage } from 'unstorage';
import type { Store, StoreTx } from '@svc-licensing/license-engine';
import { Journal, encodeLine, readJournal, removeSegments } from './journal.js';
import { loadRecords, recordKey, writeRecords } from './record-files.js';
import { Tables } from './tables.js';
import type { Change } from './tables.js';
import { openTx } from './tx.js';

/** Options of `createEmbeddedStore` over any unstorage instance (see `openEmbeddedStore` for a data folder). */
export interface EmbeddedStorageOptions {
  /** Where checkpointed records live, one key per record. */
  storage: Storage;
  /**
   * Folder of the write-ahead journal. With it, a transaction resolves only once it is on disk;
   * without it (tests, memory driver) records reach `storage` at checkpoints and on `close`.
   */
  journalDir?: string;
  /** The fs driver's base folder: checkpointed files are fsynced there before journal segments go. */
  syncBase?: string;
  /** Checkpoint at least this often while there are changes (default 30 s). */
  checkpointIntervalMs?: number;
  /** Checkpoint once the journal grows past this many bytes (default 16 MiB). */
  checkpointBytes?: number;
  /** Runs after `close` (the data folder's lock release). */
  onClose?: () => Promise<void>;
}

/** The embedded store: the `Store` port plus an explicit checkpoint. */
export interface EmbeddedStore extends Store {
  /** Writes every change so far to the storage and drops the journal segments it covers. */
  checkpoint(): Promise<void>;
}

/**
 * Creates the embedded store over an unstorage instance: every record in memory with indexes
 * (reads never touch the disk), transactions one at a time, each commit one fsynced journal line
 * before it resolves, and checkpoints that copy changed records to the storage.
 *
 * @example
 * ```ts
 * import { createStorage } from 'unstorage';
 * const store = await createEmbeddedStore({ storage: createStorage() });
 * await store.transaction((tx) => tx.get('accounts', 'acc_1'));
 * await store.close();
 * ```
 */
export async function createEmbeddedStore(options: EmbeddedStorageOptions): Promise<EmbeddedStore> {
  const { storage, journalDir, syncBase } = options;
  const tables = new Tables();

  // Recovery: checkpointed records, then every journalled transaction on top, in order.
  const loaded = await loadRecords(storage);
  for (const r of loaded.records) tables.put(r.collection, r.id, r.row);
  const replayed = new Map<string, Change>();
  let nextSegment = 1;
  if (journalDir !== undefined) {
    const { transactions, segments } = await readJournal(journalDir);
    for (const changes of transactions) {
      for (const c of changes) {
        tables.put(c.collection, c.id, c.row);
        replayed.set(recordKey(c.collection, c.id), c);
      }
    }
    const torn = loaded.torn.filter((key) => !replayed.has(key));
    if (torn.length > 0) throw new Error(`embedded store: damaged record file(s) not covered by the journal: ${torn.join(', ')}`);
    // Fold the journal into the records, then start a fresh segment after the old ones.
    await writeRecords(storage, [...replayed.values()], syncBase);
    nextSegment = (segments[segments.length - 1] ?? 0) + 1;
    // Old segments go before the new one exists: only the newest segment may end torn.
    await removeSegments(journalDir, nextSegment);
  } else if (loaded.torn.length > 0) {
    throw new Error(`embedded store: damaged record(s): ${loaded.torn.join(', ')}`);
  }
  const journal = journalDir === undefined ? null : await Journal.create(journalDir, nextSegment);

  let dirty = new Map<string, Change>();
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  let checkpointing: Promise<void> | null = null;

  /** Runs `fn` when no transaction is running (the store's mutex). */
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn);
    queue = run.catch(() => undefined);
    return run;
  };

  const unusable = () =>
    new Error('embedded store: the journal could not be written; restart the process (nothing acknowledged is lost)', {
      cause: journal?.failed,
    });

  async function runCheckpoint(): Promise<void> {
    // Take the changes so far and switch the journal to a new segment, between two transactions.
    const { changes, rotated } = await exclusive(async () => {
      const changes = dirty;
      dirty = new Map();
      return { changes, rotated: journal ? journal.rotate() : Promise.resolve(0) };
    });
    try {
      const segment = await rotated; // every line of the old segments is on disk
      if (changes.size > 0) await writeRecords(storage, [...changes.values()], syncBase);
      if (journal) await journal.removeBefore(segment);
    } catch (error) {
      // Keep what was not written for the next checkpoint; its segments stay until then.
      for (const [key, change] of changes) if (!dirty.has(key)) dirty.set(key, change);
      throw error;
    }
  }

  const checkpoint = (): Promise<void> => {
    checkpointing ??= runCheckpoint().finally(() => {
      checkpointing = null;
    });
    return checkpointing;
  };

  const timer = setInterval(() => {
    if (dirty.size > 0) checkpoint().catch(() => undefined); // retried at the next tick; the journal keeps the data
  }, options.checkpointIntervalMs ?? 30_000);
  timer.unref();
  const checkpointBytes = options.checkpointBytes ?? 16 * 1024 * 1024;

  return {
    async transaction<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
      const { result, durable } = await exclusive(async () => {
        if (closed) throw new Error('embedded store: the store is closed');
        if (journal?.failed) throw unusable();
        const open = openTx(tables);
        let result: T;
        let changes: Change[];
        let line: string | null = null;
        try {
          result = await work(open.tx);
          changes = open.changes();
          if (journal && changes.length > 0) line = encodeLine(changes);
        } catch (error) {
          open.rollback();
          throw error;
        } finally {
          open.end();
        }
        for (const c of changes) dirty.set(recordKey(c.collection, c.id), c);
        // A transaction that only read may have read changes not yet on disk: wait for them too.
        const durable = journal ? (line === null ? journal.durable() : journal.append(line)) : Promise.resolve();
        return { result, durable };
      });
      try {
        await durable;
      } catch {
        throw unusable();
      }
      if (journal && journal.bytes > checkpointBytes) checkpoint().catch(() => undefined);
      return result;
    },

    checkpoint,

    async close() {
      if (closed) return;
      await exclusive(async () => {
        closed = true;
      });
      clearInterval(timer);
      await checkpointing?.catch(() => undefined);
      try {
        if (!journal?.failed) await checkpoint();
      } finally {
        await journal?.close();
        await options.onClose?.();
      }
    },
  };
}
