import { cp, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CounterRecord, StoreTx } from '@svc-licensing/license-engine';
import { openEmbeddedStore } from '../../src/stores/embedded/index.js';
import { encodeLine } from '../../src/stores/embedded/journal-line.js';
import { rowPatch } from '../../src/stores/embedded/row-patch.js';
import { GROUP_MAX } from '../../src/stores/embedded/journal-read.js';
import { CHUNK } from '../../src/stores/embedded/journal.js';
import { useEmbeddedDirs } from '../support/embedded-dirs.js';
import { segmentLines, writeAt } from '../support/journal-files.js';

// The journal writes its segments in place into zero-filled space (journal.ts) and reads them back
// by the rule in journal-read.ts: the journal ends at the first bad line, and what follows must be
// the one unacknowledged write (at most GROUP_MAX bytes, or one longer line) then only NULs.

const { tempDir, open } = useEmbeddedDirs('svc-journal-pad-');

const counter = (id: string, count: number, accountId = 'acc_1'): CounterRecord => ({ id, accountId, count, expiresAt: '2030-01-01T00:00:00Z' });
const bump = (id: string) => async (tx: StoreTx) => {
  const c = await tx.get('counters', id);
  if (c) await tx.update('counters', { ...c, count: c.count + 1 });
  else await tx.insert('counters', counter(id, 1));
};
/** The journal line a transaction writing `row` makes: over `before` (an update), the patch of its changed fields. */
const lineOf = (row: CounterRecord, before?: CounterRecord): Buffer => {
  const patch = before ? rowPatch({ ...before }, { ...row }) : undefined;
  return encodeLine([{ collection: 'counters', id: row.id, row: { ...row }, ...(patch ? { patch } : {}) }]);
};

/** A copy of the folder as a kill -9 leaves it (no close, no checkpoint), and its one segment's path. */
async function crashCopy(dir: string): Promise<{ copy: string; segment: string }> {
  const copy = await tempDir();
  await cp(dir, copy, { recursive: true });
  await rm(join(copy, 'lock'), { force: true });
  const segments = await readdir(join(copy, 'journal'));
  expect(segments).toHaveLength(1);
  return { copy, segment: join(copy, 'journal', segments[0]!) };
}

/** Opens the folder (replaying its journal), reads one counter, closes it. */
const read = async (dir: string, id: string) => {
  const store = await openEmbeddedStore(dir);
  try {
    return await store.transaction((tx) => tx.get('counters', id));
  } finally {
    await store.close();
  }
};

describe('journal segments written in place', () => {
  it('zero-fills a segment a chunk ahead, writes commits in place without changing its size, and reads the padded segment back', async () => {
    const dir = await tempDir();
    const store = await open(dir);
    await store.transaction(bump('c'));
    const { segment } = await crashCopy(dir);
    expect((await stat(segment)).size).toBe(CHUNK);
    for (let i = 0; i < 20; i++) await store.transaction(bump('c'));
    const after = await crashCopy(dir);
    expect((await stat(after.segment)).size).toBe(CHUNK); // 20 more commits, no size change
    const raw = await readFile(after.segment);
    const lines = await segmentLines(after.segment);
    expect(lines.includes(0)).toBe(false);
    expect(lines.toString('utf8').split('\n')).toHaveLength(22); // 21 lines, then '' after the last LF
    expect(raw.subarray(lines.length).every((b) => b === 0)).toBe(true);
    expect(await read(after.copy, 'c')).toMatchObject({ count: 21 });
  });

  it('grows a segment by whole chunks for a line longer than a chunk and than a group, written alone', async () => {
    const dir = await tempDir();
    const store = await open(dir);
    await store.transaction(bump('c'));
    const big = 'x'.repeat(CHUNK + 1000);
    await Promise.all([store.transaction((tx) => tx.insert('counters', counter('big', 1, big))), store.transaction(bump('c'))]);
    const { copy, segment } = await crashCopy(dir);
    expect((await stat(segment)).size).toBe(2 * CHUNK); // CHUNK, then the big line's end rounded up to whole chunks
    expect(await read(copy, 'big')).toMatchObject({ accountId: big });
    expect(await read(copy, 'c')).toMatchObject({ count: 2 });
  });

  it('ends the journal at a group torn over the padding, zeroes it, and resumes writing at the end of the good lines', async () => {
    const dir = await tempDir();
    const store = await open(dir);
    await store.transaction(bump('c'));
    await store.transaction(bump('c'));
    const { copy, segment } = await crashCopy(dir);
    const end = (await segmentLines(segment)).length;
    // A group of two lines in flight at the crash: the first one's middle never reached the disk,
    // the second did. Neither was acknowledged. The first is what the next commit writes, byte for byte.
    const first = lineOf(counter('c', 3), counter('c', 2));
    const torn = Buffer.from(first);
    torn.fill(0, 20, first.length - 20);
    await writeAt(segment, Buffer.concat([torn, lineOf(counter('ghost', 1))]), end);

    const recovered = await openEmbeddedStore(copy);
    expect(await recovered.transaction((tx) => tx.get('counters', 'c'))).toMatchObject({ count: 2 });
    expect(await recovered.transaction((tx) => tx.get('counters', 'ghost'))).toBeNull();
    expect((await segmentLines(segment)).length).toBe(end); // the torn write was zeroed before writing resumes
    await recovered.transaction(bump('c')); // writes `first` exactly where the torn one was
    const again = await crashCopy(copy);
    await recovered.close();
    const lines = await segmentLines(again.segment);
    expect(lines.subarray(end).equals(first)).toBe(true); // resumed at the good lines' end; the ghost line was zeroed
    expect(await read(again.copy, 'c')).toMatchObject({ count: 3 });
    expect(await read(again.copy, 'ghost')).toBeNull();
  });

  it('replays every commit across kill -9 restarts, each continuing in place in the one segment', async () => {
    const dir = await tempDir();
    for (let run = 1; run <= 4; run++) {
      const store = await openEmbeddedStore(dir);
      await store.transaction(bump('c'));
      const { copy } = await crashCopy(dir);
      await store.close();
      await rm(dir, { recursive: true });
      await cp(copy, dir, { recursive: true });
      const [segment] = await readdir(join(dir, 'journal'));
      const lines = await segmentLines(join(dir, 'journal', segment!));
      expect(lines.includes(0)).toBe(false); // no gap: each run wrote right after the last line
      expect(lines.toString('utf8').split('\n')).toHaveLength(run + 1);
      expect((await stat(join(dir, 'journal', segment!))).size).toBe(CHUNK);
    }
    expect(await read(dir, 'c')).toMatchObject({ count: 4 });
  });

  it('throws on a whole line after a torn one outside the last write, and drops one inside it', async () => {
    const dir = await tempDir();
    const store = await open(dir);
    await store.transaction(bump('c'));
    // With its LF (a group's line) and without (a line longer than a group, written alone, cut off).
    for (const [tornLine, gap, damaged] of [
      ['"acc\n', GROUP_MAX + 100, true],
      ['"acc', GROUP_MAX + 100, true],
      ['"acc\n', 1000, false],
    ] as const) {
      const { copy, segment } = await crashCopy(dir);
      const end = (await segmentLines(segment)).length;
      await writeAt(segment, `1a2b3c4d\t{"w":[["counters","c",\0\0\0\0${tornLine}`, end);
      await writeAt(segment, lineOf(counter('late', 1)), end + gap);
      if (damaged) {
        await expect(openEmbeddedStore(copy)).rejects.toThrow(/damaged at line 2/);
      } else {
        expect(await read(copy, 'c')).toMatchObject({ count: 1 });
        expect(await read(copy, 'late')).toBeNull();
      }
    }
  });

  it('throws on a bad line without a NUL (not a torn write) that has lines after it', async () => {
    const dir = await tempDir();
    const store = await open(dir);
    await store.transaction(bump('c'));
    await store.transaction(bump('c'));
    const { copy, segment } = await crashCopy(dir);
    const lines = await segmentLines(segment);
    await writeAt(segment, lines.toString('latin1').replace('"count":1', '"count":7'), 0);
    await expect(openEmbeddedStore(copy)).rejects.toThrow(/damaged at line 1/);
  });

  it('reads a segment appended by the earlier writer (no padding, a torn last line) and continues after its last whole line', async () => {
    const dir = await tempDir();
    const journal = join(dir, 'journal');
    await mkdir(journal);
    const segment = join(journal, '000000000001.log');
    const old = Buffer.concat([lineOf(counter('c', 1)), lineOf(counter('c', 2)), lineOf(counter('old', 5))]);
    await writeFile(segment, Buffer.concat([old, Buffer.from('1a2b3c4d\t{"w":[["counters","c",{"id":"c","acc')]));
    const store = await openEmbeddedStore(dir);
    expect(await store.transaction((tx) => tx.get('counters', 'old'))).toMatchObject({ count: 5 });
    await store.transaction(bump('c'));
    const { copy } = await crashCopy(dir);
    await store.close();
    const lines = await segmentLines(join(copy, 'journal', '000000000001.log'));
    expect(lines.equals(Buffer.concat([old, lineOf(counter('c', 3), counter('c', 2))]))).toBe(true);
    expect(await read(copy, 'c')).toMatchObject({ count: 3 });
  });

  it('starts a new segment at each checkpoint, written in place too, and removes the covered one', async () => {
    const dir = await tempDir();
    const store = await open(dir);
    await store.transaction(bump('c'));
    await store.checkpoint();
    expect(await readdir(join(dir, 'journal'))).toEqual(['000000000002.log']);
    expect((await stat(join(dir, 'journal', '000000000002.log'))).size).toBe(0); // grown by the first write, not before
    await store.transaction(bump('c'));
    const { copy, segment } = await crashCopy(dir);
    expect((await stat(segment)).size).toBe(CHUNK);
    expect((await segmentLines(segment)).equals(lineOf(counter('c', 2), counter('c', 1)))).toBe(true);
    expect(await read(copy, 'c')).toMatchObject({ count: 2 });
  });
});
