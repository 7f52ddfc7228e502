import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryStore } from '@svc-licensing/license-engine';
import type { LicenseDetailView, Store, StoreTx, TransactionOptions } from '@svc-licensing/license-engine';
import type { Catalog, TestEngine } from './fixtures.js';
import { createCatalog, createTestEngine, fingerprint } from './fixtures.js';

/**
 * On a store whose units run one at a time (`serialUnits`: embedded, memory), a renewing heartbeat
 * admitted by the host before its lookup decides is stored in that lookup's unit: nothing can have
 * changed the row between its read and its compare and set. Nothing is written before admission.
 */

let t: TestEngine;
let c: Catalog;
let license: LicenseDetailView;
/** Each unit run: whether its options allowed writes, and what it wrote. */
let units: { readOnly: boolean; writes: string[] }[];
/** Runs once, after the next unit that wrote did its work and before it resolves: that unit's commit. */
let commitNextWrite: (() => Promise<void>) | null;

function serial(inner: Store): Store {
  return {
    serialUnits: inner.serialUnits === true,
    close: () => inner.close(),
    async transaction(work, options?: TransactionOptions) {
      const unit = { readOnly: options?.readOnly === true, writes: [] as string[] };
      units.push(unit);
      const result = await inner.transaction((tx) => {
        const seen: StoreTx = {
          ...tx,
          update: (collection, record, o) => (unit.writes.push(`update ${collection}`), tx.update(collection, record, o)),
          updateIfUnchanged: (collection, expected, record) => (unit.writes.push(`cas ${collection}`), tx.updateIfUnchanged!(collection, expected, record)),
        };
        return work(seen);
      }, options);
      if (commitNextWrite && unit.writes.length > 0) {
        const commit = commitNextWrite;
        commitNextWrite = null;
        await commit();
      }
      return result;
    },
  };
}

const machine = (n: number) => ({ product: c.product.id, key: license.key, fingerprint: fingerprint(n) });
const isoAfter = (ms: number) => new Date(t.clock.now() + ms).toISOString().replace('.000Z', 'Z');
const stored = async () => (await t.engine.getLicense(c.account.id, license.id)).activations[0]!;
const expiresAt = (certificate: string) =>
  new Date((JSON.parse(Buffer.from(certificate.split('.')[1]!, 'base64url').toString('utf8')) as { expiresAt: number }).expiresAt * 1000)
    .toISOString()
    .replace('.000Z', 'Z');

beforeEach(async () => {
  units = [];
  commitNextWrite = null;
  t = createTestEngine({ store: serial(createMemoryStore()) });
  c = await createCatalog(t);
  const plan = await t.engine.createPlan(c.account.id, c.product.id, {
    code: 'float', kind: 'perpetual', seatMode: 'floating', leaseSeconds: 900, maxBorrowDays: 7, maxActivations: 2,
  });
  ({ license } = await t.engine.createLicense(c.account.id, { plan: plan.id, email: 'ann@example.test' }));
  await t.engine.activate(machine(1));
  t.clock.advance(300_000); // the SDK's schedule: a third of the lease
  units.length = 0;
});

describe('a renewing heartbeat on a store whose units run one at a time', () => {
  it('renews in its lookup unit once admitted: one unit, one compare and set, the certificate of the lease stored', async () => {
    const { certificate, lease } = await t.engine.validate(machine(1), { admitted: Promise.resolve() });
    expect(units).toEqual([{ readOnly: false, writes: ['cas activations'] }]);
    expect(lease!.leaseExpiresAt).toBe(isoAfter(900_000));
    expect(expiresAt(certificate)).toBe(lease!.leaseExpiresAt);
    expect((await stored()).leaseExpiresAt).toBe(lease!.leaseExpiresAt);
  });

  it('renews in a unit of its own when the host admits the call after the lookup decided', async () => {
    const admitted = new Promise<void>((resolve) => setTimeout(resolve, 20));
    const { lease } = await t.engine.validate(machine(1), { admitted });
    expect(units.map((u) => u.writes)).toEqual([[], ['cas activations']]);
    expect((await stored()).leaseExpiresAt).toBe(lease!.leaseExpiresAt);
  });

  it('writes nothing for a call the host refuses, and answers the refusal', async () => {
    const before = (await stored()).leaseExpiresAt;
    const refused = new Promise<void>((_, reject) => setTimeout(() => reject(new Error('rate_limited')), 20));
    await expect(t.engine.validate(machine(1), { admitted: refused })).rejects.toThrow('rate_limited');
    expect(units.flatMap((u) => u.writes)).toEqual([]);
    expect((await stored()).leaseExpiresAt).toBe(before);
  });

  it('answers a renewal made in its lookup unit only once that unit is committed', async () => {
    let commit!: () => void;
    commitNextWrite = () => new Promise<void>((resolve) => (commit = resolve));
    let answered = false;
    const call = t.engine.validate(machine(1)).then((result) => ((answered = true), result));
    await new Promise((resolve) => setTimeout(resolve, 50)); // ample for the signature, started during the commit
    expect(units).toEqual([{ readOnly: false, writes: ['cas activations'] }]);
    expect(answered).toBe(false);
    commit();
    const { certificate, lease } = await call;
    expect(expiresAt(certificate)).toBe(lease!.leaseExpiresAt);
  });
});
