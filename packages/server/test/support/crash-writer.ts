/**
 * Child process of crash/store.test.ts: commits transfer transactions on the embedded store in a
 * data folder as fast as it can, with 8 in flight, and prints `ack <marker>` after each one
 * resolves. The test kills it with SIGKILL at random moments.
 *
 * With a checkpoint size and a count (crash/journal.test.ts) it commits that many and then idles.
 *
 * Every transaction moves 1 between two of 10 balances, increments a `total` counter and inserts
 * a marker record: a half-applied transaction breaks the sum of balances or `total` = markers.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { openEmbeddedStore } from '../../src/stores/embedded/index.js';
import type { StoreTx } from '@svc-licensing/license-engine';

const dir = process.argv[2]!;
// `<dir> <checkpointBytes> <count>`: no timed checkpoints; commits `count` transactions, prints `done`, then idles until killed.
const bounded = process.argv[3] === undefined ? null : { checkpointBytes: Number(process.argv[3]), count: Number(process.argv[4]) };
const store = await openEmbeddedStore(
  dir,
  bounded ? { checkpointBytes: bounded.checkpointBytes } : { checkpointBytes: 8 * 1024, checkpointIntervalMs: 50 },
);
const ts = '2030-01-01T00:00:00Z';

await store.transaction(async (tx) => {
  if (await tx.get('counters', 'total')) return;
  await tx.insert('counters', { id: 'total', accountId: 'acc_crash', count: 0, expiresAt: ts });
  for (let i = 0; i < 10; i++) await tx.insert('counters', { id: `b${i}`, accountId: 'acc_bal', count: 100, expiresAt: ts });
});
process.stdout.write('ready\n');

let n = 0;
async function transfer(tx: StoreTx, marker: string): Promise<void> {
  const from = `b${Math.floor(Math.random() * 10)}`;
  const to = `b${Math.floor(Math.random() * 10)}`;
  const a = (await tx.get('counters', from))!;
  await tx.update('counters', { ...a, count: a.count - 1 });
  const b = (await tx.get('counters', to))!;
  await tx.update('counters', { ...b, count: b.count + 1 });
  const total = (await tx.get('counters', 'total'))!;
  await tx.update('counters', { ...total, count: total.count + 1 });
  await tx.insert('counters', { id: marker, accountId: 'acc_mark', count: 1, expiresAt: ts });
}

async function worker(): Promise<void> {
  while (bounded === null || n < bounded.count) {
    const marker = `m_${process.pid}_${n++}`;
    await store.transaction((tx) => transfer(tx, marker));
    process.stdout.write(`ack ${marker}\n`);
  }
}

await Promise.all(Array.from({ length: 8 }, worker));
if (bounded) {
  // Let a checkpoint the store started finish (one journal segment left), for at most 2 s: the
  // test measures the journal a kill leaves between checkpoints, not one cut mid-checkpoint.
  for (let waited = 0; waited < 2000; waited += 20) {
    const segments = (await readdir(join(dir, 'journal'))).filter((name) => name.endsWith('.log'));
    if (segments.length <= 1) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
process.stdout.write('done\n');
setInterval(() => undefined, 60_000); // idle until killed
