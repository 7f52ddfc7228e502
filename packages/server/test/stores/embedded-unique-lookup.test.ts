import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { ActivationRecord, IncomingDeliveryRecord } from '@svc-licensing/license-engine';
import { openEmbeddedStore } from '../../src/stores/embedded/index.js';
import type { EmbeddedStore } from '../../src/stores/embedded/index.js';
import { Tables } from '../../src/stores/embedded/tables.js';

// A lookup by a unique key named in full (a duplicate provider delivery's log entry by its
// groupKey, a machine by license and fingerprint) goes to the key's own index, not a scan of the
// collection: the delivery log is kept 30 days, and each re-delivery looked its group up by
// scanning all of it. Whatever the history of writes, rollbacks and restarts, the indexed lookup
// must find what a scan finds.

const dirs: string[] = [];
const stores: EmbeddedStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const AT = '2030-01-01T00:00:00Z';
let serial = 0;

function delivery(groupKey: string): IncomingDeliveryRecord {
  const n = ++serial;
  return {
    id: `rcv_${String(n).padStart(6, '0')}`, accountId: 'acc_a', integrationId: 'int_a', groupKey, provider: 'provider_b', status: 401,
    result: 'refused', reason: 'signature_mismatch', message: `refused ${n}`, eventType: null, eventId: null, count: 1, firstAt: AT, lastAt: AT,
  } as IncomingDeliveryRecord;
}

async function scanFor(store: EmbeddedStore, groupKey: string): Promise<string | null> {
  const all = await store.transaction((tx) => tx.findMany('incomingDeliveries', {}));
  return all.find((d) => d.groupKey === groupKey)?.id ?? null;
}

it('finds a delivery group by its unique key as a scan does, after key changes, deletes, rollbacks and a restart', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-embedded-unique-'));
  dirs.push(dir);
  let store = await openEmbeddedStore(dir);
  stores.push(store);
  let seed = 11;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const keys = Array.from({ length: 60 }, (_, i) => `group-${i}`);
  await store.transaction(async (tx) => {
    for (const groupKey of keys.slice(0, 40)) await tx.insert('incomingDeliveries', delivery(groupKey));
  });

  for (let round = 0; round < 20; round++) {
    const rolledBack = round % 4 === 3;
    await store
      .transaction(async (tx) => {
        const all = await tx.findMany('incomingDeliveries', {});
        const taken = new Set(all.map((d) => d.groupKey));
        for (const d of all) {
          const r = random();
          const free = keys.find((k) => !taken.has(k));
          if (r < 0.15 && free) {
            taken.delete(d.groupKey);
            taken.add(free);
            await tx.update('incomingDeliveries', { ...d, groupKey: free } as IncomingDeliveryRecord);
          } else if (r < 0.25) {
            taken.delete(d.groupKey);
            await tx.delete('incomingDeliveries', d.id);
          } else if (r < 0.4) {
            await tx.update('incomingDeliveries', { ...d, count: d.count + 1 });
          }
        }
        const free = keys.filter((k) => !taken.has(k));
        for (const groupKey of free.slice(0, 3)) await tx.insert('incomingDeliveries', delivery(groupKey));
        if (rolledBack) throw new Error('roll back');
      })
      .catch((error: Error) => {
        if (error.message !== 'roll back') throw error;
      });
    if (round === 10) {
      await store.close();
      store = await openEmbeddedStore(dir);
      stores.push(store);
    }
    for (const groupKey of [...keys, 'never-seen']) {
      const found = await store.transaction((tx) => tx.findOne('incomingDeliveries', { groupKey }));
      expect(found?.id ?? null, `${groupKey} in round ${round}`).toBe(await scanFor(store, groupKey));
      if (found) expect(found.groupKey).toBe(groupKey);
    }
  }
});

it('a lookup by a unique key named in full has one candidate; a partial or null key falls back to the field indexes', () => {
  const tables = new Tables();
  for (let i = 0; i < 5_000; i++) {
    const row = delivery(`group-${i}`);
    tables.put('incomingDeliveries', row.id, row as never);
  }
  const target = [...tables.candidates('incomingDeliveries', {})][1234]!;
  const groupKey = tables.get('incomingDeliveries', target)!.groupKey as string;
  expect([...tables.candidates('incomingDeliveries', { groupKey })]).toEqual([target]);
  expect([...tables.candidates('incomingDeliveries', { groupKey: 'group-none' })]).toEqual([]);

  for (let i = 0; i < 50; i++) {
    const row = { id: `act_${String(i).padStart(4, '0')}`, accountId: 'acc_a', licenseId: 'lic_a', fingerprint: `fp-${i}`.padEnd(64, '0') } as unknown as ActivationRecord;
    tables.put('activations', row.id, row as never);
  }
  const fingerprint = 'fp-7'.padEnd(64, '0');
  const one = [...tables.candidates('activations', { licenseId: 'lic_a', fingerprint })];
  expect(one).toHaveLength(1);
  expect(tables.get('activations', one[0]!)!.fingerprint).toBe(fingerprint);
  // Only part of the key: the license's index set, every machine of it.
  expect([...tables.candidates('activations', { licenseId: 'lic_a' })]).toHaveLength(50);
  // A null value is never looked up in a unique map.
  expect([...tables.candidates('incomingDeliveries', { groupKey: null as never })]).toHaveLength(5_000);
});
