import { expect, it } from 'vitest';
import type { Store, StoreTx } from '../_internal/store.js';
import { StoreConflictError } from '../_internal/store.js';
import { createSamples } from './records.js';

/** Atomicity: a failed unit keeps none of its writes, held writes included. */
export function transactionCases(store: () => Store): void {
  const sample = createSamples();
  const run = <T>(work: (tx: StoreTx) => Promise<T>) => store().transaction(work);

  it('returns the value of the work function', async () => {
    expect(await run(async () => 42)).toBe(42);
  });

  it('keeps nothing a throwing transaction wrote (insert, update, delete) and rethrows its error', async () => {
    const kept = sample('licenses');
    const removed = sample('customers');
    await run(async (tx) => {
      await tx.insert('licenses', kept);
      await tx.insert('customers', removed);
    });
    const boom = new Error('boom');
    const added = sample('activations');
    const failure = await run(async (tx) => {
      await tx.insert('activations', added);
      await tx.update('licenses', { ...kept, status: 'revoked', activationCount: 5 });
      await tx.delete('customers', removed.id);
      throw boom;
    }).catch((e: unknown) => e);
    expect(failure).toBe(boom);
    expect(await run((tx) => tx.get('activations', added.id))).toBeNull();
    expect(await run((tx) => tx.get('licenses', kept.id))).toEqual(kept);
    expect(await run((tx) => tx.get('customers', removed.id))).toEqual(removed);
  });

  it('held writes ({ defer: true }) are seen by later reads of the unit and commit with it', async () => {
    const license = sample('licenses', { productId: 'prd_held' });
    const gone = sample('customers');
    await run((tx) => tx.insert('customers', gone));
    const inside = await run(async (tx) => {
      await tx.insert('licenses', license, { defer: true });
      await tx.update('licenses', { ...license, status: 'revoked' }, { defer: true });
      await tx.delete('customers', gone.id, { defer: true });
      return { license: await tx.get('licenses', license.id), customer: await tx.get('customers', gone.id), count: await tx.count('licenses', { productId: 'prd_held' }) };
    });
    expect(inside).toEqual({ license: { ...license, status: 'revoked' }, customer: null, count: 1 });
    expect(await run((tx) => tx.get('licenses', license.id))).toEqual({ ...license, status: 'revoked' });
    expect(await run((tx) => tx.get('customers', gone.id))).toBeNull();
  });

  it('a held insert that breaks a unique key fails the whole unit with StoreConflictError, keeping none of its writes', async () => {
    const first = sample('processedEvents');
    await run((tx) => tx.insert('processedEvents', first));
    const before = sample('counters', { count: 1 });
    const after = sample('auditEvents');
    const clash = { ...sample('processedEvents'), integrationId: first.integrationId, eventId: first.eventId };
    const failure = await run(async (tx) => {
      await tx.insert('counters', before);
      await tx.insert('processedEvents', clash, { defer: true });
      await tx.insert('auditEvents', after, { defer: true });
    }).catch((e: unknown) => e);
    expect(StoreConflictError.is(failure)).toBe(true);
    expect(await run((tx) => tx.get('counters', before.id))).toBeNull();
    expect(await run((tx) => tx.get('auditEvents', after.id))).toBeNull();
    expect(await run((tx) => tx.get('processedEvents', clash.id))).toBeNull();
  });

  it('a held update of a record that does not exist fails the whole unit, keeping none of its writes', async () => {
    const missing = sample('licenses');
    const other = sample('auditEvents');
    const failure = await run(async (tx) => {
      await tx.insert('auditEvents', other, { defer: true });
      await tx.update('licenses', missing, { defer: true });
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    expect(await run((tx) => tx.get('auditEvents', other.id))).toBeNull();
    expect(await run((tx) => tx.get('licenses', missing.id))).toBeNull();
  });

  it('a held update of a record the unit inserted and then deleted fails the whole unit too', async () => {
    const claim = sample('processedEvents');
    const other = sample('auditEvents');
    const failure = await run(async (tx) => {
      await tx.insert('processedEvents', claim);
      await tx.insert('auditEvents', other, { defer: true });
      await tx.delete('processedEvents', claim.id, { defer: true });
      await tx.update('processedEvents', { ...claim, result: 'processed' }, { defer: true });
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    expect(await run((tx) => tx.get('processedEvents', claim.id))).toBeNull();
    expect(await run((tx) => tx.get('auditEvents', other.id))).toBeNull();
    // Inserted and updated in one unit (the claim of a webhook event): both land.
    const kept = sample('processedEvents');
    await run(async (tx) => {
      await tx.insert('processedEvents', kept);
      await tx.update('processedEvents', { ...kept, result: 'processed' }, { defer: true });
    });
    expect(await run((tx) => tx.get('processedEvents', kept.id))).toEqual({ ...kept, result: 'processed' });
  });
}
