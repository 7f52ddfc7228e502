import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryStore } from '@svc-licensing/license-engine';
import type { LicenseDetailView, Store, StoreTx } from '@svc-licensing/license-engine';
import type { Catalog, TestEngine } from './fixtures.js';
import { createCatalog, createTestEngine, fingerprint } from './fixtures.js';

/**
 * A renewing heartbeat with time left is one compare and set of its activation, without the license
 * row lock (docs/decisions/license-engine.md, "Renewing without the license lock"); a row changed
 * between the read and that write sends it to the locked path, which decides as a check-out would.
 */

let t: TestEngine;
let c: Catalog;
let license: LicenseDetailView;
/** What the units wrote: `cas activations`, `update licenses`, ... */
let writes: string[];
/** Runs once, before the next unit that may write (between a validate's read and its write). */
let beforeNextWrite: (() => Promise<unknown>) | null;
/** Runs once, after the next unit that may write did its work and before it resolves: that unit's commit. */
let commitNextWrite: (() => Promise<void>) | null;

function observed(inner: Store): Store {
  return {
    close: () => inner.close(),
    async transaction(work, options) {
      if (beforeNextWrite && !options?.readOnly) {
        const hook = beforeNextWrite;
        beforeNextWrite = null;
        await hook();
      }
      const result = await inner.transaction((tx) => {
        const seen: StoreTx = {
          ...tx,
          update: (collection, record, o) => (writes.push(`update ${collection}`), tx.update(collection, record, o)),
          insert: (collection, record, o) => (writes.push(`insert ${collection}`), tx.insert(collection, record, o)),
          updateIfUnchanged: (collection, expected, record) => (writes.push(`cas ${collection}`), tx.updateIfUnchanged!(collection, expected, record)),
        };
        return work(seen);
      }, options);
      if (commitNextWrite && !options?.readOnly) {
        const commit = commitNextWrite;
        commitNextWrite = null;
        await commit();
      }
      return result;
    },
  };
}

const machine = (n: number) => ({ product: c.product.id, key: license.key, fingerprint: fingerprint(n) });

beforeEach(async () => {
  writes = [];
  beforeNextWrite = null;
  commitNextWrite = null;
  t = createTestEngine({ store: observed(createMemoryStore()) });
  c = await createCatalog(t);
  const plan = await t.engine.createPlan(c.account.id, c.product.id, {
    code: 'float', kind: 'perpetual', seatMode: 'floating', leaseSeconds: 900, maxBorrowDays: 7, maxActivations: 2,
  });
  ({ license } = await t.engine.createLicense(c.account.id, { plan: plan.id, email: 'ann@example.test' }));
  await t.engine.activate(machine(1));
  t.clock.advance(300_000); // the SDK's schedule: a third of the lease
  writes.length = 0;
});

const isoAfter = (ms: number) => new Date(t.clock.now() + ms).toISOString().replace('.000Z', 'Z');
const stored = async () => (await t.engine.getLicense(c.account.id, license.id)).activations[0]!;

describe('a renewing heartbeat without the license lock', () => {
  it('renews a live lease with one compare and set of its activation, and writes no license row', async () => {
    const { lease } = await t.engine.validate(machine(1));
    expect(writes).toEqual(['cas activations']);
    expect(lease!.leaseExpiresAt).toBe(isoAfter(900_000));
    expect((await stored()).leaseExpiresAt).toBe(lease!.leaseExpiresAt);
  });

  it('takes the locked path when a borrow changed the row after its read, and keeps the borrow', async () => {
    let borrowedUntil = '';
    beforeNextWrite = async () => ({ lease: { borrowedUntil } } = (await t.engine.borrow({ ...machine(1), days: 3 })) as never);
    const { lease } = await t.engine.validate(machine(1));
    expect(borrowedUntil).toBe(isoAfter(3 * 86_400_000));
    expect(lease).toMatchObject({ borrowedUntil, leaseExpiresAt: borrowedUntil });
    expect(await stored()).toMatchObject({ borrowedUntil, leaseExpiresAt: borrowedUntil });
  });

  it('answers not_activated when the machine was freed after its read', async () => {
    beforeNextWrite = () => t.engine.deactivate(machine(1));
    await expect(t.engine.validate(machine(1))).rejects.toMatchObject({ code: 'not_activated' });
    expect((await t.engine.getLicense(c.account.id, license.id)).activations).toEqual([]);
  });

  it('renews under the license lock, writing the license row, with less than 30 s of its lease left', async () => {
    t.clock.advance(900_000 - 300_000 - 29_000);
    const { lease } = await t.engine.validate(machine(1));
    expect(writes).toEqual(['cas activations', 'update licenses']);
    expect(lease!.leaseExpiresAt).toBe(isoAfter(900_000));
  });

  it('answers a renewal only once its write is committed, with the certificate of the lease stored', async () => {
    let commit!: () => void;
    commitNextWrite = () => new Promise<void>((resolve) => (commit = resolve));
    let answered = false;
    const call = t.engine.validate(machine(1)).then((result) => ((answered = true), result));
    await new Promise((resolve) => setTimeout(resolve, 50)); // ample for the signature, started during the commit
    expect(writes).toEqual(['cas activations']);
    expect(answered).toBe(false);
    commit();
    const { certificate, lease } = await call;
    const payload = JSON.parse(Buffer.from(certificate.split('.')[1]!, 'base64url').toString('utf8')) as { expiresAt: number };
    expect(new Date(payload.expiresAt * 1000).toISOString().replace('.000Z', 'Z')).toBe(lease!.leaseExpiresAt);
    expect((await stored()).leaseExpiresAt).toBe(lease!.leaseExpiresAt);
  });

  it('answers the failure of a renewal whose commit fails, not a certificate', async () => {
    commitNextWrite = () => Promise.reject(new Error('the journal could not be written'));
    await expect(t.engine.validate(machine(1))).rejects.toThrow('the journal could not be written');
  });
});
