import { cp, readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CounterRecord, StoreTx } from '@svc-licensing/license-engine';
import { useEmbeddedDirs } from '../support/embedded-dirs.js';

// A checkpoint writes again only the snapshot parts (5,000 records of one collection) whose records
// changed; unchanged ones (audit events, kept notification deliveries) are named by the new
// manifest and kept by the cleanup.

const { tempDir, open } = useEmbeddedDirs('svc-embedded-reuse-');

const id = (i: number) => `c${String(i).padStart(5, '0')}`;
const counter = (i: number, count: number): CounterRecord => ({ id: id(i), accountId: 'acc_1', count, expiresAt: '2030-01-01T00:00:00Z' });
const bump = (i: number) => async (tx: StoreTx) => {
  const c = (await tx.get('counters', id(i)))!;
  await tx.update('counters', { ...c, count: c.count + 1 });
};
const snapshots = (dir: string) => join(dir, 'records', 'snapshots');
const folder = async (dir: string, gen: number) => (await readdir(join(snapshots(dir), String(gen).padStart(12, '0')))).sort();
const manifestKeys = async (dir: string, gen: number) =>
  (JSON.parse(await readFile(join(snapshots(dir), String(gen).padStart(12, '0'), 'manifest'), 'utf8')) as { parts: { key: string }[] }).parts.map((p) => p.key);

describe('embedded store checkpoints', () => {
  it('write again only the parts whose records changed, keep the parts the new snapshot names, and read them back after a restart', async () => {
    const dir = await tempDir();
    const store = await open(dir);
    await store.transaction(async (tx) => {
      for (let i = 0; i < 6000; i++) await tx.insert('counters', counter(i, 1));
    });
    await store.checkpoint();
    expect(await folder(dir, 1)).toEqual(['counters-0', 'counters-1', 'manifest']);

    await store.transaction(bump(5500)); // in the second part
    await store.checkpoint();
    expect(await manifestKeys(dir, 2)).toEqual(['snapshots:000000000001:counters-0', 'snapshots:000000000002:counters-1']);
    expect(await folder(dir, 1)).toEqual(['counters-0']);
    expect(await folder(dir, 2)).toEqual(['counters-1', 'manifest']);

    await store.transaction(bump(10)); // in the first part
    await store.checkpoint();
    expect(await manifestKeys(dir, 3)).toEqual(['snapshots:000000000003:counters-0', 'snapshots:000000000002:counters-1']);
    expect((await readdir(snapshots(dir))).sort()).toEqual(['000000000002', '000000000003']);
    expect(await folder(dir, 2)).toEqual(['counters-1']);

    // After a restart (a copy as a kill would leave it), the loaded records are the snapshot's parts:
    // the next checkpoint still writes only the changed one.
    await store.transaction(bump(10));
    const copy = await tempDir();
    await cp(dir, copy, { recursive: true });
    await rm(join(copy, 'lock'), { force: true });
    const recovered = await open(copy);
    expect(await recovered.transaction((tx) => tx.get('counters', id(10)))).toMatchObject({ count: 3 });
    expect(await recovered.transaction((tx) => tx.get('counters', id(5500)))).toMatchObject({ count: 2 });
    expect(await recovered.transaction((tx) => tx.get('counters', id(5999)))).toMatchObject({ count: 1 });
    await recovered.checkpoint();
    expect(await manifestKeys(copy, 4)).toEqual(['snapshots:000000000004:counters-0', 'snapshots:000000000002:counters-1']);
    await recovered.transaction(bump(5999));
    await recovered.close();
    const again = await open(copy);
    expect(await again.transaction((tx) => tx.get('counters', id(10)))).toMatchObject({ count: 3 });
    expect(await again.transaction((tx) => tx.get('counters', id(5999)))).toMatchObject({ count: 2 });
  });
});
