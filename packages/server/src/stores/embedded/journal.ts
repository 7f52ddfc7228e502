import { constants } from 'node:fs';
import { mkdir, open, readdir, readFile, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeLine } from './journal-line.js';
import type { Change } from './tables.js';

/**
 * The write-ahead journal: one checksummed line per committed transaction, appended to a segment
 * file and on disk before the transaction is acknowledged. Lines of concurrent commits are written
 * together (group commit): a group is taken once the event loop has run every callback that was
 * ready (setImmediate), so the units of one loop turn share one write, and goes out as one
 * `O_DSYNC` write (the data and the file's size on disk when it returns, as write + fdatasync, in
 * one job of libuv's pool instead of two; write + fsync where the platform has no `O_DSYNC`). A
 * checkpoint rotates to a new segment; segments whose records are all checkpointed are deleted.
 *
 * Line format: see `journal-line.ts`.
 */

type Item =
  | { kind: 'line'; bytes: Buffer; done: Deferred }
  | { kind: 'rotate'; seq: number; done: Deferred };

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined); // a failure is reported through the store, never as an unhandled rejection
  return { promise, resolve, reject };
}

const segmentName = (seq: number): string => `${String(seq).padStart(12, '0')}.log`;
const SEGMENT_RE = /^(\d{12})\.log$/;

/**
 * Every transaction of the segments numbered `from` and above, oldest first, the newest
 * segment number and the bytes of those segments. Those segments must follow each other from `from`. A last line cut short by a
 * crash (never acknowledged) is cut off the file, so new segments can follow it.
 */
export async function readJournal(dir: string, from: number): Promise<{ transactions: Change[][]; last: number; bytes: number }> {
  await mkdir(dir, { recursive: true });
  const segments = (await readdir(dir))
    .map((name) => SEGMENT_RE.exec(name)?.[1])
    .filter((seq): seq is string => seq !== undefined)
    .map(Number)
    .filter((seq) => seq >= from)
    .sort((a, b) => a - b);
  for (const [i, seq] of segments.entries()) {
    if (seq !== from + i) throw new Error(`journal segment ${segmentName(from + i)} is missing in ${dir}`);
  }
  const transactions: Change[][] = [];
  let bytes = 0;
  for (const [s, seq] of segments.entries()) {
    const path = join(dir, segmentName(seq));
    const raw = await readFile(path);
    const lines = raw.toString('utf8').split('\n');
    const tail = lines.pop()!; // '' after the last LF, or a line cut short
    let goodBytes = 0;
    for (const [i, line] of lines.entries()) {
      const changes = decodeLine(line);
      if (!changes) {
        // Only the very last line written can be torn (it was never acknowledged).
        if (s === segments.length - 1 && i === lines.length - 1 && tail === '') break;
        throw new Error(`journal ${path} is damaged at line ${i + 1}`);
      }
      transactions.push(changes);
      goodBytes += Buffer.byteLength(line) + 1;
    }
    if (tail !== '' && s !== segments.length - 1) throw new Error(`journal ${path} ends with an incomplete line`);
    bytes += goodBytes;
    if (goodBytes < raw.length) {
      const handle = await open(path, 'r+');
      try {
        await handle.truncate(goodBytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
  }
  return { transactions, last: segments[segments.length - 1] ?? from - 1, bytes };
}

/** Deletes every segment of `dir` numbered below `seq`. */
export async function removeSegments(dir: string, seq: number): Promise<void> {
  const names = await readdir(dir);
  const segments = names.map((name) => SEGMENT_RE.exec(name)?.[1]).filter((s): s is string => s !== undefined);
  for (const old of segments.map(Number)) if (old < seq) await unlink(join(dir, segmentName(old)));
  await syncDir(dir);
}

export async function syncDir(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
  } catch (error) {
    // Windows cannot open a folder to fsync it; its file system makes new entries durable itself.
    if (process.platform === 'win32' && ['EISDIR', 'EPERM', 'EACCES'].includes((error as NodeJS.ErrnoException).code ?? '')) return;
    throw error;
  }
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * How a segment is opened for appending: with `O_DSYNC` where the platform has it (every write
 * returns once its data and the file's size are on disk), else plain append followed by fsync.
 */
const APPEND: { flags: string | number; synced: boolean } =
  constants.O_DSYNC === undefined
    ? { flags: 'a', synced: false }
    : { flags: constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC, synced: true };

const openSegment = (dir: string, seq: number): Promise<FileHandle> => open(join(dir, segmentName(seq)), APPEND.flags);

const EMPTY = Buffer.alloc(0);

/** The next turn of the event loop, after the callbacks that are ready now. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function writeAll(handle: FileHandle, data: Buffer): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset);
    offset += bytesWritten;
  }
}

/** An open journal, appending to its newest segment. */
export class Journal {
  private items: Item[] = [];
  private flushing = false;
  private failure: unknown = null;
  private last: Promise<void> = Promise.resolve();
  /** Bytes in the journal since the last rotation (replayed ones included): the checkpoint trigger. */
  bytes = 0;

  private constructor(
    readonly dir: string,
    private handle: FileHandle,
    private seq: number,
  ) {}

  /**
   * Appends to segment `seq` of `dir` (created if missing; an existing one must end with a whole
   * line, as `readJournal` leaves it). `bytes` is what the journal already holds since the last
   * checkpoint (the segments replayed at start-up), so the checkpoint trigger counts them.
   */
  static async create(dir: string, seq: number, bytes = 0): Promise<Journal> {
    const handle = await openSegment(dir, seq);
    await syncDir(dir);
    const journal = new Journal(dir, handle, seq);
    journal.bytes = bytes;
    return journal;
  }

  /** The error that made the journal unusable, if any. */
  get failed(): unknown {
    return this.failure;
  }

  /** Appends a line (`encodeLine`'s bytes); the promise resolves once it is on disk. */
  append(line: Buffer): Promise<void> {
    this.bytes += line.length;
    return this.enqueue({ kind: 'line', bytes: line, done: deferred() });
  }

  /** Resolves once everything appended so far is on disk. */
  durable(): Promise<void> {
    return this.failure ? Promise.reject(this.failure) : this.last;
  }

  /**
   * Lines appended from now on go to a new segment. Resolves with the new segment's number
   * once every earlier line is on disk and the new segment exists.
   */
  async rotate(): Promise<number> {
    const seq = this.seq + 1;
    this.bytes = 0;
    await this.enqueue({ kind: 'rotate', seq, done: deferred() });
    return seq;
  }

  /** Deletes every segment numbered below `seq` (their records are checkpointed). */
  removeBefore(seq: number): Promise<void> {
    return removeSegments(this.dir, seq);
  }

  /** Waits for pending lines, then closes the segment file. */
  async close(): Promise<void> {
    await this.last.catch(() => undefined);
    await this.handle.close();
  }

  private enqueue(item: Item): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    this.items.push(item);
    this.last = item.done.promise;
    if (!this.flushing) void this.flush();
    return item.done.promise;
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      // Let the units of this loop turn append their lines first: one write for all of them.
      await nextTurn();
      while (this.items.length > 0) {
        const first = this.items[0]!;
        if (first.kind === 'rotate') {
          const handle = await openSegment(this.dir, first.seq);
          await syncDir(this.dir);
          await this.handle.close();
          this.handle = handle;
          this.seq = first.seq;
          this.items.shift();
          first.done.resolve();
          continue;
        }
        // Every line queued before the next rotation goes out in one write and one fsync.
        let n = 0;
        while (n < this.items.length && this.items[n]!.kind === 'line') n++;
        const batch = this.items.slice(0, n);
        const lines = batch.map((item) => (item.kind === 'line' ? item.bytes : EMPTY));
        await writeAll(this.handle, lines.length === 1 ? lines[0]! : Buffer.concat(lines));
        if (!APPEND.synced) await this.handle.sync();
        this.items.splice(0, n);
        for (const item of batch) item.done.resolve();
        if (this.items.length > 0) await nextTurn();
      }
    } catch (error) {
      // A failed write or fsync leaves the file in an unknown state: refuse everything from now on.
      this.failure = error;
      for (const item of this.items.splice(0)) item.done.reject(error);
    } finally {
      this.flushing = false;
    }
  }
}
