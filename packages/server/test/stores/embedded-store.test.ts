import { cp, mkdir, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createStorage } from 'unstorage';
import { StoreConflictError } from '@svc-licensing/license-engine';
import type { CounterRecord, StoreTx } from '@svc-licensing/license-engine';
import { createEmbeddedStore, openEmbeddedStore } from '../../src/stores/embedded/index.js';
import { useEmbeddedDirs } from '../support/embedded-dirs.js';
import { segmentLines, writeAt } from '../support/journal-files.js';

const { tempDir, open, track } = useEmbeddedDirs('svc-embedded-');

const counter = (id: string, count: number): CounterRecord => ({ id, accountId: 'acc_1', count, expiresAt: '2030-01-01T00:00:00Z' });
const bump = (id: string) => async (tx: StoreTx) => {
  const c = await tx.get('counters', id);
  if (c) await tx.update('counters', { ...c, count: c.count + 1 });
  else await tx.insert('counters', counter(id, 1));
};

/** A copy of the data folder as a crash would leave it at this instant (without the owner's lock). */
async function crashCopy(dir: string): Promise<string> {
  const copy = await tempDir();
  await cp(dir, copy, { recursive: true });
  await rm(join(copy, 'lock'), { force: true });
  return copy;
}

describe('embedded store on a data folder', () => {
  it('keeps committed records, their indexes and unique keys across close and reopen', async () => {
    const dir = await tempDir();
    const store = await open(dir);
    await store.transaction(async (tx) => {
      await tx.insert('apiKeys', { id: 'key_1', accountId: 'acc_1', name: 'k', prefix: 'svc_sk_abc', hash: 'h1', lastUsedAt: null, createdAt: '2026-01-01T00:00:00Z' });
      await tx.insert('counters', counter('email:acc_1:2026-01-01T00', 3));
    });
    await store.close();
    const again = await open(dir);
    const found = await again.transaction((tx) => tx.findOne('apiKeys', { hash: 'h1' }));
    expect(found?.id).toBe('key_1');
    expect(await again.transaction((tx) => tx.get('counters', 'email:acc_1:2026-01-01T00'))).toMatchObject({ count: 3 });
    await expect(
      again.transaction((tx) =>
        tx.insert('apiKeys', { id: 'key_2', accountId: 'acc_1', name: 'k', prefix: 'svc_sk_abc', hash: 'h1', lastUsedAt: null, createdAt: '2026-01-01T00:00:00Z' }),
      ),
    ).rejects.toSatisfy(StoreConflictError.is);
  });

  it('has every acknowledged write in a copy of the folder taken right after the acknowledgement (no close, no checkpoint)', async () => {
    const dir = await tempDir();
    const store = await open(dir);
    for (let i = 0; i < 20; i++) await store.transaction(bump('c'));
    const copy = await crashCopy(dir);
    const recovered = await open(copy);
    expect(await recovered.transaction((tx) => tx.get('counters', 'c'))).toMatchObject({ count: 20 });
  });

  it('keeps nothing of a transaction that throws, in memory or on disk', async () => {
    const dir = await tempDir();
    const store = await open(dir);
    await store.transaction(bump('a'));
    await expect(
      store.transaction(async (tx) => {
        await bump('a')(tx);
        await tx.insert('counters', counter('b', 1));
        await tx.delete('counters', 'a');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await store.transaction((tx) => tx.findMany('counters', { accountId: 'acc_1' }))).toEqual([counter('a', 1)]);
    const recovered = await open(await crashCopy(dir));
    expect(await recovered.transaction((tx) => tx.findMany('counters', { accountId: 'acc_1' }))).toEqual([counter('a', 1)]);
  });

  it('serializes concurrent read-modify-write transactions (no lost update)', async () => {
    const store = await open(await tempDir());
    await Promise.all(Array.from({ length: 50 }, () => store.transaction(bump('c'))));
    expect(await store.transaction((tx) => tx.get('counters', 'c'))).toMatchObject({ count: 50 });
  });

  it('ignores a torn last journal line (a commit cut short by a crash) and keeps the rest', async () => {
    const dir = await tempDir();
    const store = await open(dir);
    await store.transaction(bump('c'));
    await store.transaction(bump('c'));
    const copy = await crashCopy(dir);
    const [segment] = await readdir(join(copy, 'journal'));
    const path = join(copy, 'journal', segment!);
    await writeAt(path, '1a2b3c4d\t{"w":[["counters","c",{"id":"c","acc', (await segmentLines(path)).length); // in place, as the writer writes

    const recovered = await open(copy);
    expect(await recovered.transaction((tx) => tx.get('counters', 'c'))).toMatchObject({ count: 2 });
    await recovered.transaction(bump('c'));
    await recovered.close();
    const again = await open(copy);
    expect(await again.transaction((tx) => tx.get('counters', 'c'))).toMatchObject({ count: 3 });
  });

  it('refuses to open a journal damaged before its last line', async () => {
    const dir = await tempDir();
    const store = await open(dir);
    await store.transaction(bump('c'));
    await store.transaction(bump('c'));
    const copy = await crashCopy(dir);
    const [segment] = await readdir(join(copy, 'journal'));
    const path = join(copy, 'journal', segment!);
    await writeFile(path, (await readFile(path, 'utf8')).replace('"count":1', '"count":7'));
    await expect(openEmbeddedStore(copy)).rejects.toThrow(/damaged at line 1/);
  });

  it('falls back to the previous snapshot and the journal when a newer snapshot was cut short', async () => {
    const dir = await tempDir();
    const store = await open(dir);
    await store.transaction(bump('c'));
    await store.checkpoint();
    await store.transaction(bump('c'));
    const copy = await crashCopy(dir);
    // A checkpoint killed mid-way: generation 2 has a part and a manifest cut short.
    await mkdir(join(copy, 'records', 'snapshots', '000000000002'), { recursive: true });
    await writeFile(join(copy, 'records', 'snapshots', '000000000002', 'counters-0'), '[{"id":"c","acc');
    await writeFile(join(copy, 'records', 'snapshots', '000000000002', 'manifest'), '{"v":1,"gen":2,"segm');
    const recovered = await open(copy);
    expect(await recovered.transaction((tx) => tx.get('counters', 'c'))).toMatchObject({ count: 2 });
  });

  it('refuses to open when a journal segment after the snapshot is missing', async () => {
    const dir = await tempDir();
    const store = await open(dir);
    await store.transaction(bump('c'));
    await store.checkpoint();
    await store.transaction(bump('c'));
    await store.checkpoint();
    await store.transaction(bump('c'));
    const copy = await crashCopy(dir);
    await rm(join(copy, 'records', 'snapshots', (await readdir(join(copy, 'records', 'snapshots')))[0]!), { recursive: true });
    await writeFile(join(copy, 'records', 'snapshots', 'stale'), ''); // unrelated file: ignored
    const gens = await readdir(join(copy, 'records', 'snapshots'));
    expect(gens).toEqual(['stale']); // the only complete snapshot is gone, segment 1 was deleted with it
    await expect(openEmbeddedStore(copy)).rejects.toThrow(/000000000001\.log is missing/);
  });

  it('checkpoints into a snapshot, keeps one generation and drops the covered journal', async () => {
    const dir = await tempDir();
    const store = await open(dir);
    await store.transaction(bump('c'));
    await store.transaction(async (tx) => tx.insert('counters', counter('gone', 1)));
    await store.transaction(async (tx) => tx.delete('counters', 'gone'));
    await store.checkpoint();
    await store.transaction(bump('c'));
    await store.checkpoint();
    expect(await readdir(join(dir, 'records', 'snapshots'))).toEqual(['000000000002']);
    const part = JSON.parse(await readFile(join(dir, 'records', 'snapshots', '000000000002', 'counters-0'), 'utf8')) as unknown;
    expect(part).toEqual([counter('c', 2)]);
    const segments = await readdir(join(dir, 'journal'));
    expect(segments).toEqual(['000000000003.log']);
    expect(await readFile(join(dir, 'journal', segments[0]!), 'utf8')).toBe('');
  });

  it('removes at the next checkpoint a snapshot folder that a kill during cleanup left empty', async () => {
    const dir = await tempDir();
    const store = await open(dir);
    await store.transaction(bump('c'));
    await store.checkpoint();
    await store.transaction(bump('c'));
    await store.checkpoint();
    // Killed while removing generation 1: its files are gone, its folder is not (no key names it any more).
    await mkdir(join(dir, 'records', 'snapshots', '000000000001'));
    await writeFile(join(dir, 'records', 'snapshots', 'stale'), ''); // not a generation: left alone
    await store.transaction(bump('c'));
    await store.checkpoint();
    expect((await readdir(join(dir, 'records', 'snapshots'))).sort()).toEqual(['000000000003', 'stale']);
  });

  it('keeps appending to the newest journal segment across restarts instead of adding one per start', async () => {
    const dir = await tempDir();
    for (let run = 0; run < 3; run++) {
      const store = await openEmbeddedStore(dir);
      await store.transaction(bump('c'));
      const copy = await crashCopy(dir); // as a kill -9 would leave it: no checkpoint on close
      await store.close();
      await rm(dir, { recursive: true });
      await cp(copy, dir, { recursive: true });
    }
    expect(await readdir(join(dir, 'journal'))).toEqual(['000000000001.log']);
    const store = await open(dir);
    expect(await store.transaction((tx) => tx.get('counters', 'c'))).toMatchObject({ count: 3 });
  });

  it('writes no journal line for an update that changes nothing (a validate within the same second)', async () => {
    const dir = await tempDir();
    const store = await open(dir);
    await store.transaction(bump('c'));
    const [segment] = await readdir(join(dir, 'journal'));
    const size = (await segmentLines(join(dir, 'journal', segment!))).length;
    await store.transaction(async (tx) => tx.update('counters', (await tx.get('counters', 'c'))!));
    expect((await segmentLines(join(dir, 'journal', segment!))).length).toBe(size);
    await store.transaction(bump('c'));
    expect((await segmentLines(join(dir, 'journal', segment!))).length).toBeGreaterThan(size);
  });

  it('refuses every transaction and reports once when the journal cannot be written (disk full), losing nothing acknowledged', async () => {
    const dir = await tempDir();
    const failures: unknown[] = [];
    const store = await openEmbeddedStore(dir, { onFailure: (error) => failures.push(error) });
    track(store);
    await store.transaction(bump('c'));
    await symlink('/dev/full', join(dir, 'journal', '000000000002.log')); // the next segment: every write gets ENOSPC
    await store.checkpoint();
    await expect(store.transaction(bump('c'))).rejects.toThrow(/restart the process/);
    await expect(store.transaction((tx) => tx.get('counters', 'c'))).rejects.toThrow(/restart the process/);
    expect(failures).toEqual([expect.objectContaining({ code: 'ENOSPC' })]);
    await store.close();
    await rm(join(dir, 'journal', '000000000002.log'));
    const recovered = await open(dir);
    expect(await recovered.transaction((tx) => tx.get('counters', 'c'))).toMatchObject({ count: 1 });
  });

  it('lets only one process open a data folder at a time', async () => {
    const dir = await tempDir();
    await open(dir);
    await expect(openEmbeddedStore(dir)).rejects.toThrow(/already open/);
    const copy = await tempDir();
    await writeFile(join(copy, 'lock'), `${process.pid}\n`); // left by a crashed earlier run with our PID (a restarted container)
    await (await openEmbeddedStore(copy)).close();
    await writeFile(join(copy, 'lock'), `${process.ppid}\n`); // a running process
    await expect(openEmbeddedStore(copy)).rejects.toThrow(`in use by process ${process.ppid}`);
  });
});

describe('embedded store on the unstorage memory driver', () => {
  it('writes its records to the storage on close, and a new store over it reads them back', async () => {
    const storage = createStorage();
    const store = await createEmbeddedStore({ storage });
    await store.transaction(bump('c'));
    await store.transaction(bump('c'));
    await store.close();
    expect(await storage.getKeys()).toEqual(['snapshots:000000000001:counters-0', 'snapshots:000000000001:manifest']);
    const again = await createEmbeddedStore({ storage });
    track(again);
    expect(await again.transaction((tx) => tx.get('counters', 'c'))).toMatchObject({ count: 2 });
  });

  it('finds an updated record by its new indexed values only, frees its old unique key, and undoes both on a throw', async () => {
    const store = await createEmbeddedStore({ storage: createStorage() });
    track(store);
    const key = (id: string, hash: string, accountId = 'acc_1') => ({ id, accountId, name: 'k', prefix: 'svc_sk_abc', hash, lastUsedAt: null, createdAt: '2026-01-01T00:00:00Z' });
    const ids = (where: { accountId?: string; hash?: string }) => store.transaction(async (tx) => (await tx.findMany('apiKeys', where)).map((k) => k.id));
    await store.transaction((tx) => tx.insert('apiKeys', key('key_1', 'h1')));
    await store.transaction((tx) => tx.update('apiKeys', { ...key('key_1', 'h1'), lastUsedAt: '2026-01-02T00:00:00Z' }));
    expect(await ids({ accountId: 'acc_1', hash: 'h1' })).toEqual(['key_1']);
    await store.transaction((tx) => tx.update('apiKeys', key('key_1', 'h2', 'acc_2')));
    expect([await ids({ accountId: 'acc_1' }), await ids({ hash: 'h1' }), await ids({ accountId: 'acc_2', hash: 'h2' })]).toEqual([[], [], ['key_1']]);
    await store.transaction((tx) => tx.insert('apiKeys', key('key_2', 'h1')));
    await expect(store.transaction((tx) => tx.insert('apiKeys', key('key_3', 'h2')))).rejects.toSatisfy(StoreConflictError.is);
    const failed = store.transaction(async (tx) => {
      await tx.update('apiKeys', key('key_1', 'h3'));
      throw new Error('undo');
    });
    await expect(failed).rejects.toThrow('undo');
    expect([await ids({ hash: 'h3' }), await ids({ hash: 'h2' })]).toEqual([[], ['key_1']]);
    await store.transaction((tx) => tx.insert('apiKeys', key('key_3', 'h3')));
  });
});
