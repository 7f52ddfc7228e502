import { constants } from 'node:fs';
import { open, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { GROUP_MAX, segmentName, segmentNumbers } from './journal-read.js';

/**
 * The write-ahead journal: one checksummed line per committed transaction, written to a segment
 * file and on disk before the transaction is acknowledged. Lines of concurrent commits are written
 * together (group commit): a group is taken once the event loop has run every callback that was
 * ready (setImmediate), so the units of one loop turn share one write (at most `GROUP_MAX` bytes, a
 * longer line alone), and goes out as one `O_DSYNC` write (on disk when it returns, as write +
 * fdatasync, in one job of libuv's pool instead of two; write + fsync where the platform has no
 * `O_DSYNC`). A checkpoint rotates to a new segment; segments whose records are all checkpointed
 * are deleted.
 *
 * Segments are written in place, not appended: each group goes at an explicit position into space
 * that holds zeros already on disk, so the write changes no file size and the disk commits only the
 * data (on ext4 an appending `O_DSYNC` write also commits the size, a journal commit per group, about
 * 2x the time). When a group does not fit, the segment grows by `CHUNK` bytes: the group and the
 * zeros after it in one write, so the size changes once per chunk. A segment therefore ends with NUL
 * padding; how a reader finds its end after a crash is in `journal-read.ts`.
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

/** Deletes every segment of `dir` numbered below `seq`. */
export async function removeSegments(dir: string, seq: number): Promise<void> {
  for (const old of await segmentNumbers(dir)) if (old < seq) await unlink(join(dir, segmentName(old)));
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
 * How a segment is opened for writing in place (never `O_APPEND`: Linux ignores the position of a
 * write then): with `O_DSYNC` where the platform has it (every write returns once its data, and the
 * file's size if it grew, are on disk), else plain writes, each followed by fsync.
 */
const WRITE = { flags: constants.O_WRONLY | constants.O_CREAT | (constants.O_DSYNC ?? 0), synced: constants.O_DSYNC !== undefined };

const openSegment = (dir: string, seq: number): Promise<FileHandle> => open(join(dir, segmentName(seq)), WRITE.flags);

/**
 * Zeroed bytes a segment grows by when a group does not fit: one size change (a metadata commit)
 * per chunk. 1 MiB: 19 KiB `O_DSYNC` groups took 0.29 to 0.38 ms each with 1 MiB chunks, 0.33 to
 * 0.44 with 2 MiB, 0.36 to 0.42 with 4 MiB, 0.43 to 0.45 appended (this machine's ext4, 2026-11-28).
 */
export const CHUNK = 1024 * 1024;

const EMPTY = Buffer.alloc(0);

/** The next turn of the event loop, after the callbacks that are ready now. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Zeros a growing segment's writes take their padding from, shared for the process and never
 * written to: a new zero-filled buffer per chunk cost a renewing heartbeat about 4 µs of event loop
 * (issue 27's profiles). Padding is always shorter than `CHUNK` (the segment grows to the first
 * whole chunk past the group).
 */
const ZEROS = Buffer.alloc(CHUNK);

/**
 * Writes `parts` one after another from `position` in one gathering write (`O_DSYNC`: on disk when
 * it returns); a short write (rare: a full disk fails instead) finishes from a copy of what is left.
 */
async function writeAt(handle: FileHandle, parts: Buffer[], position: number): Promise<void> {
  let total = 0;
  for (const part of parts) total += part.length;
  const first = parts.length === 1 ? await handle.write(parts[0]!, 0, total, position) : await handle.writev(parts, position);
  if (first.bytesWritten >= total) return;
  const rest = Buffer.concat(parts, total);
  for (let offset = first.bytesWritten; offset < total; ) {
    const { bytesWritten } = await handle.write(rest, offset, total - offset, position + offset);
    offset += bytesWritten;
  }
}

/** The buffers of one write: a group's lines as one buffer, then `zeros` zero bytes (from {@link ZEROS}) when the segment grows. */
function groupParts(lines: Buffer[], length: number, zeros: number): Buffer[] {
  const joined = lines.length === 1 ? lines[0]! : Buffer.concat(lines, length);
  return zeros === 0 ? [joined] : [joined, ZEROS.subarray(0, zeros)];
}

/** An open journal, writing to its newest segment. */
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
    /** Where the next group goes: the end of the segment's lines. */
    private position: number,
    /** The segment's size: zeros on disk from `position` to here. */
    private allocated: number,
  ) {}

  /**
   * Writes to segment `seq` of `dir` (created if missing) from byte `position` on: an existing
   * segment must hold whole lines up to `position` and only zeros after it, as `readJournal` leaves
   * it (its `end`). `bytes` is what the journal already holds since the last checkpoint (the
   * segments replayed at start-up), so the checkpoint trigger counts them.
   */
  static async create(dir: string, seq: number, bytes = 0, position = 0): Promise<Journal> {
    const handle = await openSegment(dir, seq);
    const { size } = await handle.stat();
    await syncDir(dir);
    const journal = new Journal(dir, handle, seq, position, Math.max(size, position));
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
          this.position = 0;
          this.allocated = (await handle.stat()).size;
          this.items.shift();
          first.done.resolve();
          continue;
        }
        // The lines queued before the next rotation, up to GROUP_MAX bytes (at least one line), go
        // out in one write at the end of the segment's lines; a segment too short grows by whole chunks.
        let n = 0;
        let length = 0;
        for (let item = this.items[0]; item?.kind === 'line' && (n === 0 || length + item.bytes.length <= GROUP_MAX); item = this.items[++n]) {
          length += item.bytes.length;
        }
        const batch = this.items.slice(0, n);
        const lines = batch.map((item) => (item.kind === 'line' ? item.bytes : EMPTY));
        const end = this.position + length;
        const grown = end <= this.allocated ? this.allocated : this.allocated + Math.ceil((end - this.allocated) / CHUNK) * CHUNK;
        await writeAt(this.handle, groupParts(lines, length, grown - end), this.position);
        if (!WRITE.synced) await this.handle.sync();
        this.position = end;
        this.allocated = grown;
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
