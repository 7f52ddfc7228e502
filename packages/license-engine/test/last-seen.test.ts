import { beforeEach, describe, expect, it } from 'vitest';
import { LAST_SEEN_RESOLUTION_MS, createMemoryStore } from '@svc-licensing/license-engine';
import type { LicenseDetailView, Store, TransactionOptions } from '@svc-licensing/license-engine';
import type { Catalog, TestEngine } from './fixtures.js';
import { START, createCatalog, createTestEngine, fingerprint, recordWrites } from './fixtures.js';

let t: TestEngine;
let c: Catalog;
let writes: string[];
let license: LicenseDetailView;

beforeEach(async () => {
  const recorded = recordWrites(createMemoryStore());
  writes = recorded.writes;
  t = createTestEngine({ store: recorded.store });
  c = await createCatalog(t);
  ({ license } = await t.engine.createLicense(c.account.id, { plan: c.plans.pro.id, email: 'ann@example.test', paidUntil: '2030-02-15T10:00:00Z' }));
  await t.engine.activate({ product: c.product.id, key: license.key, fingerprint: fingerprint(1), platform: 'linux', appVersion: '1.0.0' });
  writes.length = 0;
});

const validate = (over: Record<string, unknown> = {}) =>
  t.engine.validate({ product: c.product.id, key: license.key, fingerprint: fingerprint(1), platform: 'linux', appVersion: '1.0.0', ...over });
const lastSeen = async () => (await t.engine.getLicense(c.account.id, license.id)).activations[0]?.lastSeenAt;
const at = (ms: number) => new Date(Date.parse(START) + ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe('validate: lastSeenAt is coalesced to one minute', () => {
  it('the resolution is 60 seconds', () => {
    expect(LAST_SEEN_RESOLUTION_MS).toBe(60_000);
  });

  it('writes nothing while lastSeenAt would move by 60 s or less, and records it once it would move further', async () => {
    t.clock.advance(30_000);
    await validate();
    t.clock.advance(30_000); // exactly 60 s after the last recorded time
    await validate();
    expect(writes).toEqual([]);
    expect(await lastSeen()).toBe(START);

    t.clock.advance(1_000);
    await validate();
    expect(writes).toEqual(['update activations']);
    expect(await lastSeen()).toBe(at(61_000));

    // The next window counts from the time just recorded.
    writes.length = 0;
    t.clock.advance(60_000);
    await validate();
    expect(writes).toEqual([]);
    t.clock.advance(1_000);
    await validate();
    expect(writes).toEqual(['update activations']);
    expect(await lastSeen()).toBe(at(122_000));
  });

  it('a new platform or app version is written at once, with the current time', async () => {
    t.clock.advance(5_000);
    await validate({ appVersion: '1.1.0' });
    expect(writes).toEqual(['update activations']);
    const [activation] = (await t.engine.getLicense(c.account.id, license.id)).activations;
    expect([activation?.appVersion, activation?.lastSeenAt]).toEqual(['1.1.0', at(5_000)]);
  });

  it('activate always refreshes lastSeenAt', async () => {
    t.clock.advance(10_000);
    await t.engine.activate({ product: c.product.id, key: license.key, fingerprint: fingerprint(1) });
    expect(await lastSeen()).toBe(at(10_000));
  });
});

describe('validate while the host admits the call (ClientCallOptions.admitted)', () => {
  /** A promise the test settles, and whether it has been awaited to the end. */
  const deferred = () => {
    let resolve!: () => void;
    let reject!: (error: Error) => void;
    const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
    return { promise, resolve, reject };
  };
  const idle = () => new Promise((r) => setTimeout(r, 20));

  it('gives no certificate and writes nothing before the call is admitted, then records lastSeenAt', async () => {
    t.clock.advance(61_000); // lastSeenAt must be written
    const gate = deferred();
    let answered = false;
    const call = t.engine.validate({ product: c.product.id, key: license.key, fingerprint: fingerprint(1) }, { admitted: gate.promise }).then((r) => {
      answered = true;
      return r;
    });
    await idle();
    expect([answered, writes]).toEqual([false, []]);
    gate.resolve();
    expect((await call).certificate).toMatch(/^CRT1\./);
    expect(writes).toEqual(['update activations']);
    expect(await lastSeen()).toBe(at(61_000));
  });

  it('answers with the refusal of the admission and writes nothing, even when lastSeenAt is stale', async () => {
    t.clock.advance(61_000);
    const refusal = new Error('rate limited by the host');
    const gate = deferred();
    const call = t.engine.validate({ product: c.product.id, key: license.key, fingerprint: fingerprint(1) }, { admitted: gate.promise });
    await idle();
    gate.reject(refusal);
    await expect(call).rejects.toBe(refusal);
    expect(writes).toEqual([]);
    expect(await lastSeen()).toBe(START);
  });

  it('the refusal of the admission comes before an unknown product or a malformed body', async () => {
    const refusal = new Error('rate limited by the host');
    for (const input of [
      { product: 'prd_missing', key: license.key, fingerprint: fingerprint(1) },
      { product: c.product.id, key: 'not a key', fingerprint: fingerprint(1) },
    ]) {
      const gate = deferred();
      const call = t.engine.validate(input, { admitted: gate.promise });
      await idle();
      gate.reject(refusal);
      await expect(call).rejects.toBe(refusal);
    }
    // Admitted, the same calls get their own answers.
    await expect(t.engine.validate({ product: 'prd_missing', key: license.key, fingerprint: fingerprint(1) }, { admitted: Promise.resolve() })).rejects.toMatchObject({ code: 'unknown_product' });
  });

  it('activate and deactivate wait for the admission before anything', async () => {
    const refusal = new Error('rate limited by the host');
    const activating = t.engine.activate({ product: c.product.id, key: license.key, fingerprint: fingerprint(2) }, { admitted: Promise.reject(refusal) });
    await expect(activating).rejects.toBe(refusal);
    const deactivating = t.engine.deactivate({ product: c.product.id, key: license.key, fingerprint: fingerprint(1) }, { admitted: Promise.reject(refusal) });
    await expect(deactivating).rejects.toBe(refusal);
    expect(writes).toEqual([]);
  });
});

describe("validate's write unit reads shared records", () => {
  it('asks the store for shared frozen reads (sharedReads), and the memory store, which freezes them, catches a change to one', async () => {
    const inner = createMemoryStore();
    const units: (TransactionOptions | undefined)[] = [];
    const store: Store = {
      close: () => inner.close(),
      transaction: (work, options) => (units.push(options), inner.transaction(work, options)),
    };
    const e = createTestEngine({ store });
    const cat = await createCatalog(e);
    const { license: l } = await e.engine.createLicense(cat.account.id, { plan: cat.plans.pro.id, email: 'bo@example.test', paidUntil: '2030-02-15T10:00:00Z' });
    const call = { product: cat.product.id, key: l.key, fingerprint: fingerprint(2), platform: 'linux', appVersion: '1.0.0' };
    await e.engine.activate(call);
    e.clock.advance(61_000);
    units.length = 0;
    await e.engine.validate(call); // lastSeenAt must move: the read-only attempt, then the write unit
    expect(units.map((o) => ({ readOnly: o?.readOnly === true, sharedReads: o?.sharedReads === true }))).toEqual([
      { readOnly: true, sharedReads: false },
      { readOnly: false, sharedReads: true },
    ]);
    expect((await e.engine.getLicense(cat.account.id, l.id)).activations[0]?.lastSeenAt).toBe(at(61_000));
    // What the engine promised: a change to a record read in such a unit throws, and nothing of the unit is kept.
    const changing = inner.transaction(async (tx) => {
      const activation = (await tx.findOne('activations', { licenseId: l.id }))!;
      await tx.update('activations', { ...activation, name: 'a new object is fine' });
      activation.name = 'changed in place';
    }, { sharedReads: true });
    await expect(changing).rejects.toThrow(TypeError);
    expect((await e.engine.getLicense(cat.account.id, l.id)).activations[0]?.name).toBeNull();
  });
});
