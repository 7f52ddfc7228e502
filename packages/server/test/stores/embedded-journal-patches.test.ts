import { appendFile, cp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { expect, it } from 'vitest';
import type { ActivationRecord, StoreTx } from '@svc-licensing/license-engine';
import { openEmbeddedStore } from '../../src/stores/embedded/index.js';
import { useEmbeddedDirs } from '../support/embedded-dirs.js';
import { segmentLines, writeAt } from '../support/journal-files.js';

// An update that changes a few fields of a stored row (a heartbeat's lease end and lastSeenAt) is
// journalled as a patch of those fields (journal-line.ts); a restart must give back exactly the
// rows a process that never stopped holds, whatever happened between the patches.

const { tempDir, open } = useEmbeddedDirs('svc-journal-patch-');

function activation(id: string): ActivationRecord {
  return {
    id, accountId: 'acc_1', licenseId: 'lic_1', fingerprint: Buffer.from(id).toString('hex').padEnd(64, '0'), name: 'build box', platform: 'linux', appVersion: '1.0.0',
    createdAt: '2030-01-01T00:00:00Z', lastSeenAt: '2030-01-01T00:00:00Z', leaseExpiresAt: '2030-01-01T00:05:00Z', borrowedUntil: null,
    lapseRecorded: '2029-12-01T00:00:00Z',
  };
}

/** A heartbeat's renewal: `lastSeenAt` and `leaseExpiresAt` moved to minute `n`. */
const renew = (id: string, n: number) => async (tx: StoreTx) => {
  const row = (await tx.get('activations', id))!;
  const at = `2030-01-01T${String(Math.floor(n / 60)).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}:00Z`;
  await tx.update('activations', { ...row, lastSeenAt: at, leaseExpiresAt: at.replace(/:00Z$/, ':30Z') });
};

/** A copy of the folder as a kill -9 leaves it (no close, no checkpoint), reopened; and the copy's newest segment. */
async function crashCopy(dir: string): Promise<{ copy: string; segment: string }> {
  const copy = await tempDir();
  await cp(dir, copy, { recursive: true });
  await rm(join(copy, 'lock'), { force: true });
  const segments = (await readdir(join(copy, 'journal'))).sort();
  return { copy, segment: join(copy, 'journal', segments[segments.length - 1]!) };
}

const readAll = async (dir: string): Promise<ActivationRecord[]> => {
  const store = await open(dir);
  return store.transaction((tx) => tx.findMany('activations', {}));
};

it('gives back the last state of a row renewed many times, each renewal journalled as a patch of its changed fields', async () => {
  const dir = await tempDir();
  const store = await open(dir);
  await store.transaction((tx) => tx.insert('activations', activation('act_a')));
  await store.transaction((tx) => tx.insert('activations', activation('act_b')));
  for (let n = 1; n <= 50; n++) await store.transaction(renew(n % 2 === 0 ? 'act_a' : 'act_b', n));
  // A removed field and a field set to null are not the same row.
  await store.transaction(async (tx) => {
    const { lapseRecorded: _, ...row } = (await tx.get('activations', 'act_a'))!;
    await tx.update('activations', { ...row, name: null });
  });
  const live = await store.transaction((tx) => tx.findMany('activations', {}));
  const { copy, segment } = await crashCopy(dir);
  const lines = (await segmentLines(segment)).toString('utf8').trimEnd().split('\n');
  expect(lines).toHaveLength(53);
  // A renewal's line holds the two fields it moved, not the record.
  expect(lines[2]).toMatch(/^[0-9a-f]{8}\t\{"w":\[\["activations","act_b",\{"lastSeenAt":"2030-01-01T00:01:00Z","leaseExpiresAt":"2030-01-01T00:01:30Z"\},\[\]\]\]\}$/);
  expect(lines[52]).toContain('{"name":null},["lapseRecorded"]');
  expect(lines[2]!.length).toBeLessThan(lines[0]!.length / 2);

  const replayed = await readAll(copy);
  expect(replayed).toEqual(live);
  expect(replayed[0]).toEqual({ ...activation('act_a'), name: null, lapseRecorded: undefined, lastSeenAt: '2030-01-01T00:50:00Z', leaseExpiresAt: '2030-01-01T00:50:30Z' });
  expect('lapseRecorded' in replayed[0]!).toBe(false);
  expect(replayed[1]).toMatchObject({ lastSeenAt: '2030-01-01T00:49:00Z', leaseExpiresAt: '2030-01-01T00:49:30Z', lapseRecorded: '2029-12-01T00:00:00Z' });
});

it('writes the whole row when most of its fields change', async () => {
  const dir = await tempDir();
  const store = await open(dir);
  await store.transaction((tx) => tx.insert('counters', { id: 'c', accountId: 'acc_1', count: 1, expiresAt: '2030-01-01T00:00:00Z' }));
  await store.transaction(async (tx) => tx.update('counters', { id: 'c', accountId: 'acc_2', count: 2, expiresAt: '2031-01-01T00:00:00Z' }));
  const { copy, segment } = await crashCopy(dir);
  const lines = (await segmentLines(segment)).toString('utf8').trimEnd().split('\n');
  expect(lines[1]).toContain('["counters","c",{"id":"c","accountId":"acc_2","count":2,"expiresAt":"2031-01-01T00:00:00Z"}]');
  const store2 = await open(copy);
  expect(await store2.transaction((tx) => tx.get('counters', 'c'))).toEqual({ id: 'c', accountId: 'acc_2', count: 2, expiresAt: '2031-01-01T00:00:00Z' });
});

it('drops a patch torn by a crash and keeps the patches before it', async () => {
  const dir = await tempDir();
  const store = await open(dir);
  await store.transaction((tx) => tx.insert('activations', activation('act_a')));
  for (let n = 1; n <= 5; n++) await store.transaction(renew('act_a', n));
  const { copy, segment } = await crashCopy(dir);
  const good = await segmentLines(segment);
  // The sixth renewal's line in flight at the kill: its middle never reached the disk.
  await store.transaction(renew('act_a', 6));
  const after = await crashCopy(dir);
  const line = (await segmentLines(after.segment)).subarray(good.length);
  expect(line.length).toBeGreaterThan(40);
  await writeAt(segment, Buffer.concat([line.subarray(0, 20), Buffer.alloc(line.length - 40), line.subarray(line.length - 20)]), good.length);

  const reopened = await openEmbeddedStore(copy);
  try {
    expect(await reopened.transaction((tx) => tx.get('activations', 'act_a'))).toMatchObject({ lastSeenAt: '2030-01-01T00:05:00Z' });
    await reopened.transaction(renew('act_a', 7)); // written where the torn line was
  } finally {
    await reopened.close();
  }
  expect(await readAll(copy)).toMatchObject([{ lastSeenAt: '2030-01-01T00:07:00Z', leaseExpiresAt: '2030-01-01T00:07:30Z' }]);
  expect(await readAll(after.copy)).toMatchObject([{ lastSeenAt: '2030-01-01T00:06:00Z' }]);
});

it('applies the patches after a checkpoint to the rows of its snapshot', async () => {
  const dir = await tempDir();
  const store = await open(dir);
  await store.transaction((tx) => tx.insert('activations', activation('act_a')));
  await store.transaction(renew('act_a', 1));
  await store.checkpoint(); // the snapshot holds the whole row; the old segment goes
  await store.transaction(renew('act_a', 2));
  await store.transaction(renew('act_a', 3));
  const live = await store.transaction((tx) => tx.findMany('activations', {}));
  const { copy, segment } = await crashCopy(dir);
  expect(segment.endsWith('000000000002.log')).toBe(true);
  expect((await segmentLines(segment)).toString('utf8')).not.toContain('"fingerprint"');
  expect(await readAll(copy)).toEqual(live);
  expect(live[0]).toMatchObject({ lastSeenAt: '2030-01-01T00:03:00Z' });
});

it('refuses to open a journal that patches a row it never wrote', async () => {
  const dir = await tempDir();
  const store = await open(dir);
  await store.transaction((tx) => tx.insert('activations', activation('act_a')));
  await store.transaction(renew('act_a', 1));
  await store.close();
  // A well-formed line (its checksum right) patching a row that does not exist at replay.
  const json = JSON.stringify({ w: [['activations', 'act_ghost', { lastSeenAt: '2030-01-01T00:09:00Z' }, []]] });
  const [segment] = await readdir(join(dir, 'journal'));
  await appendFile(join(dir, 'journal', segment!), `${crc32(json).toString(16).padStart(8, '0')}\t${json}\n`);
  await expect(openEmbeddedStore(dir)).rejects.toThrow(/damaged: a line patches activations act_ghost, which does not exist/);
});
