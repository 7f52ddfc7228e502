import { afterEach, describe, expect, it } from 'vitest';
import { createStorage } from 'unstorage';
import type { CounterRecord, PlanRecord } from '@svc-licensing/license-engine';
import { createEmbeddedStore } from '../../src/stores/embedded/index.js';
import type { EmbeddedStore } from '../../src/stores/embedded/index.js';

// Read-only units of the embedded store hand out shared frozen records instead of a copy per
// read: they must still show every commit, and nobody may change the store through them.
const stores: EmbeddedStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});
const open = async () => {
  const store = await createEmbeddedStore({ storage: createStorage() });
  stores.push(store);
  return store;
};
const counter = (id: string, count: number): CounterRecord => ({ id, accountId: 'acc_1', count, expiresAt: '2030-01-01T00:00:00Z' });
const readOnly = { readOnly: true } as const;

describe('embedded store read-only units', () => {
  it('refuses a write and keeps nothing of the unit', async () => {
    const store = await open();
    await expect(store.transaction((tx) => tx.insert('counters', counter('c1', 1)), readOnly)).rejects.toThrow(/read-only unit/);
    expect(await store.transaction((tx) => tx.get('counters', 'c1'))).toBeNull();
  });

  it('returns frozen records (nested values too) that cannot change what the store holds', async () => {
    const store = await open();
    const plan = { id: 'pln_1', accountId: 'acc_1', entitlements: ['a'] } as unknown as PlanRecord;
    await store.transaction((tx) => tx.insert('plans', plan));
    const read = (await store.transaction((tx) => tx.get('plans', 'pln_1'), readOnly))!;
    expect(() => (read.entitlements as string[]).push('b')).toThrow(TypeError);
    expect(() => Object.assign(read, { accountId: 'acc_2' })).toThrow(TypeError);
    const writable = (await store.transaction((tx) => tx.get('plans', 'pln_1')))!;
    expect(writable).toEqual(plan);
    writable.entitlements.push('mine'); // a read-write unit's copy is the caller's own
    expect((await store.transaction((tx) => tx.get('plans', 'pln_1'), readOnly))!.entitlements).toEqual(['a']);
    expect(Object.isFrozen(plan) || Object.isFrozen(plan.entitlements)).toBe(false); // the writer's own object, never frozen
  });

  it('sees each commit: the shared record follows updates and deletes', async () => {
    const store = await open();
    await store.transaction((tx) => tx.insert('counters', counter('c1', 1)));
    const count = async () => (await store.transaction((tx) => tx.findOne('counters', { accountId: 'acc_1' }), readOnly))?.count ?? null;
    expect(await count()).toBe(1);
    await store.transaction((tx) => tx.update('counters', counter('c1', 2)));
    expect(await count()).toBe(2);
    await store.transaction((tx) => tx.delete('counters', 'c1'));
    expect(await count()).toBeNull();
  });

  it('a sharedReads write unit reads the same shared frozen records and still writes (copied), and a change to what it read throws', async () => {
    const store = await open();
    const plan = { id: 'pln_1', accountId: 'acc_1', entitlements: ['a'] } as unknown as PlanRecord;
    await store.transaction((tx) => tx.insert('plans', plan));
    const shared = (await store.transaction((tx) => tx.get('plans', 'pln_1'), readOnly))!;
    const next = await store.transaction(async (tx) => {
      const read = (await tx.get('plans', 'pln_1'))!;
      expect(read).toBe(shared); // no copy for this unit
      const written = { ...read, entitlements: [...read.entitlements, 'b'] };
      await tx.update('plans', written);
      written.entitlements.push('kept by the caller'); // the store copied the write
      return (await tx.get('plans', 'pln_1'))!;
    }, { sharedReads: true });
    expect(next.entitlements).toEqual(['a', 'b']);
    expect(Object.isFrozen(next)).toBe(true);
    expect((await store.transaction((tx) => tx.get('plans', 'pln_1'), readOnly))!).toBe(next); // one shared record per stored row
    await expect(store.transaction(async (tx) => {
      await tx.insert('counters', counter('c1', 1));
      (await tx.get('plans', 'pln_1'))!.accountId = 'acc_2';
    }, { sharedReads: true })).rejects.toThrow(TypeError);
    expect(await store.transaction((tx) => tx.get('counters', 'c1'))).toBeNull();
    expect((await store.transaction((tx) => tx.get('plans', 'pln_1')))!).toEqual({ ...plan, entitlements: ['a', 'b'] });
  });
});

