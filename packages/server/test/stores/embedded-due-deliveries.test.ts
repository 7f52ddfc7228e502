import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { NotificationDeliveryRecord, StoreTx } from '@svc-licensing/license-engine';
import { openEmbeddedStore } from '../../src/stores/embedded/index.js';
import type { EmbeddedStore } from '../../src/stores/embedded/index.js';

// The embedded store answers `dueDeliveries` from an index by due time kept beside the records:
// whatever the history of claims, records, rollbacks and restarts, a dispatcher must be handed
// exactly the pending deliveries due soonest, as a scan of every record would find them.

const dirs: string[] = [];
const stores: EmbeddedStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const T = 1_900_000_000_000;

function delivery(i: number, dueAt: number): NotificationDeliveryRecord {
  return {
    id: `msg_${String(i).padStart(5, '0')}`, accountId: 'acc_1', endpointId: 'wep_1', eventId: null, type: 'license.created',
    body: `{"n":${i}}`, state: 'pending', dueAt, nextAttemptAt: dueAt, roundAttempts: 0, firstAttemptAt: null, attempts: [],
    claim: null, createdAt: '2030-01-01T00:00:00Z', updatedAt: '2030-01-01T00:00:00Z',
  } as NotificationDeliveryRecord;
}

/** What a scan of every delivery finds: pending, due at `now`, by due time then id. */
async function scan(store: EmbeddedStore, now: number, limit: number): Promise<string[]> {
  const all = await store.transaction((tx) => tx.findMany('notificationDeliveries', {}));
  return all
    .filter((d) => d.state === 'pending' && typeof d.dueAt === 'number' && d.dueAt <= now)
    .sort((a, b) => (a.dueAt as number) - (b.dueAt as number) || (a.id < b.id ? -1 : 1))
    .slice(0, limit)
    .map((d) => d.id);
}

const due = (store: EmbeddedStore, now: number, limit: number) =>
  store.transaction(async (tx) => (await tx.dueDeliveries({ now, limit })).map((d) => d.id));

it('hands out the soonest due deliveries after claims, records, rollbacks and a restart, as a full scan finds them', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-embedded-due-'));
  dirs.push(dir);
  let store = await openEmbeddedStore(dir);
  stores.push(store);
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  await store.transaction(async (tx) => {
    for (let i = 0; i < 400; i++) await tx.insert('notificationDeliveries', delivery(i, T - 1000 + Math.floor(random() * 2000)));
  });
  const rewrite = async (tx: StoreTx, d: NotificationDeliveryRecord) => {
    const r = random();
    if (r < 0.3) await tx.update('notificationDeliveries', { ...d, dueAt: T + 60_000, claim: { token: 'x', until: T + 60_000 } });
    else if (r < 0.6) await tx.update('notificationDeliveries', { ...d, state: 'delivered', dueAt: null, claim: null });
    else if (r < 0.8) await tx.update('notificationDeliveries', { ...d, dueAt: T - 2000 + Math.floor(random() * 4000) });
    else await tx.delete('notificationDeliveries', d.id);
  };
  for (let round = 0; round < 30; round++) {
    const now = T - 500 + round * 40;
    const limit = 1 + Math.floor(random() * 20);
    expect(await due(store, now, limit)).toEqual(await scan(store, now, limit));
    // A claim that commits, and one that throws after its writes (nothing of it may stay).
    await store.transaction(async (tx) => {
      for (const d of await tx.dueDeliveries({ now, limit })) await rewrite(tx, d);
    });
    await expect(store.transaction(async (tx) => {
      for (const d of await tx.dueDeliveries({ now, limit: 5 })) await rewrite(tx, d);
      throw new Error('rolled back');
    })).rejects.toThrow('rolled back');
    expect(await due(store, now, 500)).toEqual(await scan(store, now, 500));
  }
  const before = await scan(store, T + 100_000, 500);
  expect(before.length).toBeGreaterThan(0);
  await store.close();
  store = await openEmbeddedStore(dir);
  stores.push(store);
  expect(await due(store, T + 100_000, 500)).toEqual(before);
});
