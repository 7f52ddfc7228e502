import { mkdir, open, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeLine } from './journal-line.js';
import type { JournalEntry } from './journal-line.js';

/**
 * Reading the write-ahead journal back at start-up (see `journal.ts` for how it is written).
 *
 * A segment is checksummed lines (`journal-line.ts`), then NUL bytes up to the file's end: the
 * writer writes each group of lines in place into space it zero-filled and synced beforehand. A
 * segment written by the appending writer of earlier versions has no NUL padding and reads the same.
 *
 * Where the journal ends: at the first line of the newest segment that does not decode (or at the
 * padding). What follows it can only be the one write that was in flight at the crash, never
 * acknowledged, so it is dropped: a write starts only once the one before it is on disk, and it
 * started at or before the bad line and held at most `GROUP_MAX` bytes, or a single longer line
 * written alone (which then starts at the bad line and ends at its LF). A line never holds a NUL,
 * so the rule, for the bad line starting at byte `at`:
 * - no LF after it: no whole line follows; the journal ends at `at`;
 * - no NUL in it: it must be the last line, with only NULs after it (the appending writer's rule:
 *   only the last line can be torn); else the segment is damaged;
 * - a NUL in it (a sector the torn write had not reached): every byte past
 *   max(`at` + `GROUP_MAX`, its LF + 1) must be NUL, and a bad line longer than `GROUP_MAX` must
 *   not end with a whole line after its last NUL (a line written after the padding); else damaged.
 * A damaged segment throws, as does a bad line in any segment but the newest. The dropped bytes
 * are overwritten with zeros and synced before the writer resumes, at `at` (the end of the good
 * lines), not at the file's end.
 */

/** The most bytes one write of a group of lines holds; a line longer than this is written alone. */
export const GROUP_MAX = 256 * 1024;

const LF = 0x0a;
const NUL = 0x00;

export const segmentName = (seq: number): string => `${String(seq).padStart(12, '0')}.log`;
const SEGMENT_RE = /^(\d{12})\.log$/;

/** The numbers of the segments in `dir`, ascending. */
export async function segmentNumbers(dir: string): Promise<number[]> {
  return (await readdir(dir))
    .map((name) => SEGMENT_RE.exec(name)?.[1])
    .filter((seq): seq is string => seq !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** One segment's lines: the transactions, where the good lines end, and where its non-NUL bytes end. */
export function scanSegment(raw: Buffer, newest: boolean, path: string): { transactions: JournalEntry[][]; end: number; dataEnd: number } {
  let dataEnd = raw.length;
  while (dataEnd > 0 && raw[dataEnd - 1] === NUL) dataEnd--;
  const transactions: JournalEntry[][] = [];
  let at = 0;
  let lineNo = 1;
  while (at < dataEnd) {
    const lf = raw.indexOf(LF, at);
    const changes = lf === -1 ? null : decodeLine(raw.toString('utf8', at, lf));
    if (!changes) {
      const damaged = () => new Error(`journal ${path} is damaged at line ${lineNo}${lf === -1 ? ' (an incomplete line)' : ''}`);
      if (!newest) throw damaged();
      if (lf === -1) break; // no whole line follows: the last write, torn
      const line = raw.subarray(at, lf);
      const nul = line.lastIndexOf(NUL);
      if (nul === -1) {
        if (lf + 1 === dataEnd) break; // the last line, torn (the appending writer's rule)
        throw damaged();
      }
      // Torn over the padding. A bad line longer than a group was written alone: it must not end
      // with a whole line after its NULs (a line written after the padding).
      const alone = lf + 1 > at + GROUP_MAX;
      if (dataEnd > Math.max(at + GROUP_MAX, lf + 1) || (alone && decodeLine(line.toString('utf8', nul + 1)) !== null)) throw damaged();
      break;
    }
    transactions.push(changes);
    at = lf + 1;
    lineNo++;
  }
  return { transactions, end: at, dataEnd };
}

/** Overwrites bytes `from` to `to` of the file with zeros and syncs it. */
async function zero(path: string, from: number, to: number): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    const zeros = Buffer.alloc(to - from);
    let done = 0;
    while (done < zeros.length) done += (await handle.write(zeros, done, zeros.length - done, from + done)).bytesWritten;
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Every transaction of the segments numbered `from` and above, oldest first, the newest segment
 * number, the bytes of those segments' lines, and where the good lines of the newest segment end
 * (where writing resumes). Those segments must follow each other from `from`. The unacknowledged
 * write a crash cut short is zeroed, so the writer can continue over it.
 */
export async function readJournal(
  dir: string,
  from: number,
): Promise<{ transactions: JournalEntry[][]; last: number; bytes: number; end: number }> {
  await mkdir(dir, { recursive: true });
  const segments = (await segmentNumbers(dir)).filter((seq) => seq >= from);
  for (const [i, seq] of segments.entries()) {
    if (seq !== from + i) throw new Error(`journal segment ${segmentName(from + i)} is missing in ${dir}`);
  }
  const transactions: JournalEntry[][] = [];
  let bytes = 0;
  let end = 0;
  for (const [s, seq] of segments.entries()) {
    const path = join(dir, segmentName(seq));
    const scanned = scanSegment(await readFile(path), s === segments.length - 1, path);
    for (const changes of scanned.transactions) transactions.push(changes);
    bytes += scanned.end;
    end = scanned.end;
    if (scanned.end < scanned.dataEnd) await zero(path, scanned.end, scanned.dataEnd);
  }
  return { transactions, last: segments[segments.length - 1] ?? from - 1, bytes, end };
}
