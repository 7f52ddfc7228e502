import { expect, it } from 'vitest';
import type { NotificationDeliveryRecord, StoreTx } from '@svc-licensing/license-engine';
import type { EmbeddedStore } from '../../src/stores/embedded/index.js';
import { useEmbeddedDirs } from '../support/embedded-dirs.js';

// The embedded store makes a notification delivery's account, endpoint and state index entries when
// those indexes are next read, not when the delivery is written. Whatever the order of writes,
// claims, deletes, rollbacks, reads and restarts, a lookup by those fields (the delivery log, an
// endpoint's re-enabling, an account's export) and a dispatcher's claim must find what a scan of
// every delivery finds.

const { tempDir, open } = useEmbeddedDirs('svc-embedded-delivery-indexes-');
const T = 1_900_000_000_000;

function delivery(i: number, random: () => number): NotificationDeliveryRecord {
  const dueAt = T - 1000 + Math.floor(random() * 2000);
  return {
    id: `msg_${String(i).padStart(5, '0')}`, accountId: `acc_${i % 3}`, endpointId: `wep_${i % 5}`, eventId: null, type: 'license.created',
    body: `{"n":${i}}`, state: 'pending', dueAt, nextAttemptAt: dueAt, roundAttempts: 0, firstAttemptAt: null, attempts: [],
    claim: null, createdAt: '2030-01-01T00:00:00Z', updatedAt: '2030-01-01T00:00:00Z',
  } as NotificationDeliveryRecord;
}

const wheres: Partial<NotificationDeliveryRecord>[] = [
  { endpointId: 'wep_1' },
  { endpointId: 'wep_2', state: 'pending' },
  { accountId: 'acc_0' },
  { state: 'delivered' },
  { state: 'pending' },
  { accountId: 'acc_2', endpointId: 'wep_4', state: 'failed' },
];

/** Every lookup by the indexed fields, and the claim, each against a scan of every delivery. */
async function expectAsScan(store: EmbeddedStore, now: number): Promise<void> {
  const all = await store.transaction((tx) => tx.findMany('notificationDeliveries', {}));
  const due = all
    .filter((d) => d.state === 'pending' && typeof d.dueAt === 'number' && d.dueAt <= now)
    .sort((a, b) => (a.dueAt as number) - (b.dueAt as number) || (a.id < b.id ? -1 : 1))
    .map((d) => d.id);
  expect(await store.transaction(async (tx) => (await tx.dueDeliveries({ now, limit: 5000 })).map((d) => d.id))).toEqual(due);
  for (const where of wheres) {
    const expected = all.filter((d) => Object.entries(where).every(([k, v]) => (d as unknown as Record<string, unknown>)[k] === v)).map((d) => d.id);
    expect(await store.transaction(async (tx) => (await tx.findMany('notificationDeliveries', where)).map((d) => d.id)), JSON.stringify(where)).toEqual(expected);
    expect(await store.transaction((tx) => tx.count('notificationDeliveries', where))).toBe(expected.length);
    const page = await store.transaction((tx) => tx.page('notificationDeliveries', { where, limit: 7, order: 'desc' }));
    expect(page.data.map((d) => d.id)).toEqual([...expected].reverse().slice(0, 7));
  }
}

it('finds deliveries by account, endpoint and state as a scan does, however their index entries were put off', async () => {
  const dir = await tempDir();
  let store = await open(dir);
  let seed = 11;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let next = 0;
  const rewrite = async (tx: StoreTx, d: NotificationDeliveryRecord) => {
    const r = random();
    if (r < 0.25) await tx.update('notificationDeliveries', { ...d, dueAt: T + 60_000, claim: { token: 'x', until: T + 60_000 } });
    else if (r < 0.5) await tx.update('notificationDeliveries', { ...d, state: 'delivered', dueAt: null, claim: null });
    else if (r < 0.6) await tx.update('notificationDeliveries', { ...d, state: 'failed', dueAt: null, claim: null });
    else if (r < 0.75) await tx.update('notificationDeliveries', { ...d, endpointId: `wep_${Math.floor(random() * 5)}` });
    else if (r < 0.9) await tx.update('notificationDeliveries', { ...d, dueAt: T - 2000 + Math.floor(random() * 4000) });
    else await tx.delete('notificationDeliveries', d.id);
  };
  for (let round = 0; round < 24; round++) {
    const now = T - 500 + round * 40;
    // New deliveries, some rewritten in the same unit before any read of the indexes.
    await store.transaction(async (tx) => {
      for (let i = 0; i < 120; i++) {
        const d = delivery(next++, random);
        await tx.insert('notificationDeliveries', d);
        if (random() < 0.2) await rewrite(tx, d);
      }
    });
    // A claim that commits and one that rolls back, then (every other round only) the lookups.
    await store.transaction(async (tx) => {
      for (const d of await tx.dueDeliveries({ now, limit: 40 })) await rewrite(tx, d);
    });
    await expect(store.transaction(async (tx) => {
      for (let i = 0; i < 10; i++) await tx.insert('notificationDeliveries', delivery(100_000 + round * 10 + i, random));
      for (const d of await tx.dueDeliveries({ now, limit: 20 })) await rewrite(tx, d);
      throw new Error('rolled back');
    })).rejects.toThrow('rolled back');
    if (round % 2 === 1) await expectAsScan(store, now);
  }
  await expectAsScan(store, T + 100_000);
  await store.close();
  store = await open(dir);
  await expectAsScan(store, T + 100_000);
});
