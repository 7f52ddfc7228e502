import type { Storage } from 'unstorage';
import type { Collection, Store, StoreTx, TransactionOptions } from '@svc-licensing/license-engine';
import { encodeLine } from './journal-line.js';
import type { JournalEntry } from './journal-line.js';
import { patched } from './row-patch.js';
import { Journal, removeSegments } from './journal.js';
import { readJournal } from './journal-read.js';
import { loadSnapshot, removeSnapshotsBefore, writeSnapshot } from './snapshot.js';
import { Tables } from './tables.js';
import type { Row } from './tables.js';
import type { SnapshotPart } from './snapshot.js';
import { openTx } from './tx.js';

/** Options of `createEmbeddedStore` over any unstorage instance (see `openEmbeddedStore` for a data folder). */
export interface EmbeddedStorageOptions {
  /** Where snapshots live. */
  storage: Storage;
  /**
   * Folder of the write-ahead journal. With it, a transaction resolves only once it is on disk;
   * without it (tests, memory driver) records reach `storage` only at checkpoints and on `close`.
   */
  journalDir?: string;
  /** The fs driver's base folder: snapshot files are fsynced there before journal segments go. */
  syncBase?: string;
  /**
   * Checkpoint once the journal holds this many bytes, or as many as the last snapshot if that is
   * more (so snapshot work stays proportional to writes). Default 16 MiB.
   */
  checkpointBytes?: number;
  /** Also checkpoint this often while there are changes (default: only by size and on close). */
  checkpointIntervalMs?: number;
  /** Runs after `close` (the data folder's lock release). */
  onClose?: () => Promise<void>;
  /**
   * Called once if the journal cannot be written (disk full, I/O error): every later transaction
   * fails, so a server should exit and be restarted (nothing acknowledged is lost).
   */
  onFailure?: (error: unknown) => void;
}

/** The embedded store: the `Store` port plus an explicit checkpoint. */
export interface EmbeddedStore extends Store {
  /** Writes a snapshot of every record and drops the journal segments it covers. */
  checkpoint(): Promise<void>;
}

/** What recovery found: the snapshot's generation and size, whether the journal replayed changes, the open journal. */
interface Recovered {
  generation: number;
  snapshotBytes: number;
  /** The snapshot's parts with their records, for the next checkpoint to reuse. */
  parts: SnapshotPart[];
  changed: boolean;
  journal: Journal | null;
}

/** Applies one journal entry to the tables; a patch of a row that does not exist is a damaged journal. */
function replay(tables: Tables, entry: JournalEntry, journalDir: string): void {
  if (!('patch' in entry)) return tables.put(entry.collection, entry.id, entry.row);
  const before = tables.get(entry.collection, entry.id);
  if (before === null) throw new Error(`journal in ${journalDir} is damaged: a line patches ${entry.collection} ${entry.id}, which does not exist`);
  tables.put(entry.collection, entry.id, patched(before, entry.patch));
}

/** Recovery: the newest complete snapshot, then every journalled transaction after it, in order, into `tables`. */
async function recover(tables: Tables, storage: Storage, journalDir: string | undefined): Promise<Recovered> {
  const snapshot = await loadSnapshot(storage);
  for (const [collection, row] of snapshot?.rows ?? []) tables.put(collection, row.id, row);
  tables.takeChanged(); // what the snapshot holds; the replay's writes count from here
  const generation = snapshot?.manifest.gen ?? 0;
  const snapshotBytes = snapshot?.bytes ?? 0;
  const parts = snapshot?.parts ?? [];
  if (journalDir === undefined) return { generation, snapshotBytes, parts, changed: false, journal: null };
  const from = snapshot?.manifest.segment ?? 1;
  const { transactions, last, bytes, end } = await readJournal(journalDir, from);
  for (const changes of transactions) for (const entry of changes) replay(tables, entry, journalDir);
  await removeSegments(journalDir, from); // covered by the snapshot (a checkpoint cut short)
  // Keep writing to the newest segment, at the end of its lines (its torn tail is zeroed; 0 when
  // there is none yet), and count what was replayed: a process killed again and again must not add
  // a segment per start nor restart the count at 0.
  const journal = await Journal.create(journalDir, Math.max(last, from), bytes, end);
  return { generation, snapshotBytes, parts, changed: transactions.length > 0, journal };
}

/** Every record by collection (records are immutable, so references will do). */
function imageOf(tables: Tables): Map<Collection, Row[]> {
  const image = new Map<Collection, Row[]>();
  for (const [collection, row] of tables.entries()) {
    let rows = image.get(collection);
    if (!rows) image.set(collection, (rows = []));
    rows.push(row);
  }
  return image;
}

/**
 * Creates the embedded store over an unstorage instance: every record in memory with indexes
 * (reads never touch the disk), transactions one at a time, each commit one fsynced journal line
 * before it resolves (a `readOnly` unit gets shared, frozen records instead of copies), and checkpoints that write a snapshot of all records to the storage.
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
  const { storage, syncBase } = options;
  const tables = new Tables();
  const { journal, ...recovered } = await recover(tables, storage, options.journalDir);
  let { generation, snapshotBytes, parts, changed } = recovered;

  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  let checkpointing: Promise<void> | null = null;
  let failureReported = false;

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
    // Between two transactions: take an image (records are immutable, so references will do)
    // and switch the journal to a new segment; what the image holds is in the older segments.
    const { image, written, rotated } = await exclusive(async () => {
      changed = false;
      return { image: imageOf(tables), written: tables.takeChanged(), rotated: journal ? journal.rotate() : Promise.resolve(0) };
    });
    try {
      const segment = await rotated; // every line of the older segments is on disk
      const gen = generation + 1;
      const snapshot = await writeSnapshot(storage, image, gen, segment, syncBase, parts, written);
      generation = gen;
      ({ bytes: snapshotBytes, parts } = snapshot);
      if (journal) await journal.removeBefore(segment);
      await removeSnapshotsBefore(storage, gen, syncBase, new Set(parts.map((part) => part.key)));
    } catch (error) {
      changed = true; // try again later; the journal still holds everything
      parts = []; // and write every part then: the ids written before this image are not tracked any more
      throw error;
    }
  }

  const checkpoint = (): Promise<void> => {
    checkpointing ??= runCheckpoint().finally(() => {
      checkpointing = null;
    });
    return checkpointing;
  };

  const timer =
    options.checkpointIntervalMs === undefined
      ? null
      : setInterval(() => {
          if (changed) checkpoint().catch(() => undefined); // retried at the next tick; the journal keeps the data
        }, options.checkpointIntervalMs);
  timer?.unref();
  const checkpointBytes = options.checkpointBytes ?? 16 * 1024 * 1024;
  const journalTooLong = () => journal !== null && journal.bytes > Math.max(checkpointBytes, snapshotBytes);
  // A journal replayed at start-up that is already past the trigger: checkpoint now, not after more writes.
  if (journalTooLong()) checkpoint().catch(() => undefined);

  return {
    async transaction<T>(work: (tx: StoreTx) => Promise<T>, txOptions?: TransactionOptions): Promise<T> {
      const { result, durable } = await exclusive(async () => {
        if (closed) throw new Error('embedded store: the store is closed');
        if (journal?.failed) throw unusable();
        const open = openTx(tables, txOptions?.readOnly === true, txOptions?.sharedReads === true);
        let result: T;
        let line: Buffer | null = null;
        try {
          result = await work(open.tx);
          const changes = open.changes();
          if (changes.length > 0) {
            changed = true;
            if (journal) line = encodeLine(changes);
          }
        } catch (error) {
          open.rollback();
          throw error;
        } finally {
          open.end();
        }
        // A unit that only read may have read changes not yet on disk: wait for them too, unless its caller discards its result (then runs a write unit, which waits for its own line).
        const durable = journal === null || (line === null && txOptions?.discarded?.(result) === true) ? Promise.resolve() : line === null ? journal.durable() : journal.append(line);
        return { result, durable };
      });
      try {
        await durable;
      } catch {
        if (!failureReported) {
          failureReported = true;
          options.onFailure?.(journal?.failed);
        }
        throw unusable();
      }
      if (journalTooLong()) checkpoint().catch(() => undefined);
      return result;
    },

    checkpoint,

    async close() {
      if (closed) return;
      await exclusive(async () => {
        closed = true;
      });
      if (timer) clearInterval(timer);
      await checkpointing?.catch(() => undefined);
      try {
        if (changed && !journal?.failed) await checkpoint();
      } finally {
        await journal?.close();
        await options.onClose?.();
      }
    },
  };
}
