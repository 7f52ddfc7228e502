import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { openEmbeddedStore } from '../../src/stores/embedded/index.js';
import { exited, onLines, spawnTs } from '../support/cli-process.js';

const writer = fileURLToPath(new URL('../support/crash-writer.ts', import.meta.url));
let dir = '';
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Starts the writer, lets it commit for a random while, kills it with SIGKILL; returns the markers it acknowledged. */
async function runAndKill(): Promise<string[]> {
  const child = spawnTs(writer, [dir]);
  const acked: string[] = [];
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const ready = new Promise<void>((resolve) =>
    onLines(child, (line) => {
      if (line === 'ready') resolve();
      else if (line.startsWith('ack ')) acked.push(line.slice(4));
    }),
  );
  const died = exited(child);
  const outcome = await Promise.race([ready.then(() => 'ready' as const), died]);
  if (outcome !== 'ready') throw new Error(`writer exited (${outcome}) before it was ready: ${stderr}`);
  await new Promise((resolve) => setTimeout(resolve, 30 + Math.random() * 250));
  child.kill('SIGKILL');
  expect(await died).toBe('SIGKILL');
  return acked;
}

it('loses no acknowledged transaction and keeps no half transaction when the writing process is killed with SIGKILL, repeatedly', async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-crash-'));
  const acked: string[] = [];
  for (let round = 0; round < 12; round++) acked.push(...(await runAndKill()));
  expect(acked.length).toBeGreaterThan(20); // not vacuous: transactions were acknowledged between the kills

  const store = await openEmbeddedStore(dir);
  try {
    const { balances, total, markers } = await store.transaction(async (tx) => ({
      balances: await tx.findMany('counters', { accountId: 'acc_bal' }),
      total: await tx.get('counters', 'total'),
      markers: await tx.findMany('counters', { accountId: 'acc_mark' }),
    }));
    const markerIds = new Set(markers.map((m) => m.id));
    expect(acked.filter((id) => !markerIds.has(id))).toEqual([]);
    expect(balances).toHaveLength(10);
    expect(balances.reduce((sum, b) => sum + b.count, 0)).toBe(1000);
    expect(total?.count).toBe(markers.length);
  } finally {
    await store.close();
  }
}, 120_000);
