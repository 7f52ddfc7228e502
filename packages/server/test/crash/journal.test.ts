import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { openEmbeddedStore } from '../../src/stores/embedded/index.js';
import { exited, onLines, spawnTs } from '../support/cli-process.js';
import { segmentLines } from '../support/journal-files.js';

/**
 * A process that is killed again and again, each run writing less than the checkpoint size, must
 * not grow its journal (and its start-up replay) without bound: the checkpoint trigger counts
 * the journal replayed at start-up, and a start adds no segment of its own.
 */
const writer = fileURLToPath(new URL('../support/crash-writer.ts', import.meta.url));
const CHECKPOINT_BYTES = 36 * 1024;
const PER_RUN = 40; // transactions per run: about a quarter of the checkpoint size (each update's line a patch)

let dir = '';
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function journal(): Promise<{ segments: number; bytes: number }> {
  const names = (await readdir(join(dir, 'journal'))).filter((name) => name.endsWith('.log'));
  let bytes = 0;
  for (const name of names) bytes += (await segmentLines(join(dir, 'journal', name))).length; // lines, not the zero padding
  return { segments: names.length, bytes };
}

/** Runs the writer until it has committed PER_RUN transactions, then kills it with SIGKILL. */
async function runAndKill(): Promise<string[]> {
  const child = spawnTs(writer, [dir, String(CHECKPOINT_BYTES), String(PER_RUN)]);
  const acked: string[] = [];
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<void>((resolve) =>
    onLines(child, (line) => {
      if (line === 'done') resolve();
      else if (line.startsWith('ack ')) acked.push(line.slice(4));
    }),
  );
  const died = exited(child);
  const outcome = await Promise.race([done.then(() => 'done' as const), died]);
  if (outcome !== 'done') throw new Error(`writer exited (${outcome}) before it was done: ${stderr}`);
  child.kill('SIGKILL');
  expect(await died).toBe('SIGKILL');
  return acked;
}

it('keeps the journal under the checkpoint size across repeated kill -9 restarts that each write less than it', async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-journal-'));
  const acked: string[] = [];
  const sizes: { segments: number; bytes: number }[] = [];
  let perRunBytes = 0;
  for (let round = 0; round < 14; round++) {
    const before = (await journal().catch(() => ({ segments: 0, bytes: 0 }))).bytes;
    acked.push(...(await runAndKill()));
    const after = await journal();
    if (round === 0) perRunBytes = after.bytes - before;
    sizes.push(after);
  }
  // Not vacuous: the runs together wrote several checkpoint sizes of journal.
  expect(perRunBytes * 14).toBeGreaterThan(3 * CHECKPOINT_BYTES);
  expect(perRunBytes).toBeLessThan(CHECKPOINT_BYTES / 2);
  for (const size of sizes) {
    expect(size.bytes).toBeLessThanOrEqual(CHECKPOINT_BYTES + perRunBytes);
    expect(size.segments).toBeLessThanOrEqual(2);
  }

  // And nothing acknowledged was lost on the way.
  const store = await openEmbeddedStore(dir);
  try {
    const markers = await store.transaction((tx) => tx.findMany('counters', { accountId: 'acc_mark' }));
    const ids = new Set(markers.map((m) => m.id));
    expect(acked.filter((id) => !ids.has(id))).toEqual([]);
    expect(markers).toHaveLength(14 * PER_RUN);
  } finally {
    await store.close();
  }
}, 120_000);
