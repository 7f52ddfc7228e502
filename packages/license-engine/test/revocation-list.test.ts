import { beforeEach, describe, expect, it } from 'vitest';
import { verifyCertificate, verifyRevocationList } from '@svc-licensing/verifier';
import { REVOCATION_ENTRY_DAYS } from '@svc-licensing/license-engine';
import type { Catalog, TestEngine } from './fixtures.js';
import { DAY, createCatalog, createTestEngine, fingerprint } from './fixtures.js';

let t: TestEngine;
let c: Catalog;

beforeEach(async () => {
  t = createTestEngine();
  c = await createCatalog(t);
});

const publicKeys = async () => Object.fromEntries((await t.engine.listSigningKeys(c.account.id, c.product.id)).data.map((k) => [k.kid, k.publicKey]));
const now = () => Math.floor(t.clock.now() / 1000);

/** The current list, verified as an application would, with every published key. */
async function currentList() {
  const { seq, text } = await t.engine.getRevocationList(c.product.id);
  const checked = await verifyRevocationList(text, { publicKeys: await publicKeys(), product: c.product.id });
  if (checked.outcome !== 'valid') throw new Error(`list is ${checked.outcome}`);
  return { seq, text, list: checked.list };
}

async function licenseOnMachine(n: number) {
  const { license } = await t.engine.createLicense(c.account.id, { plan: c.plans.pro.id, email: `m${n}@example.test`, paidUntil: '2031-01-01T00:00:00Z' });
  const activated = await t.engine.activate({ product: c.product.id, key: license.key, fingerprint: fingerprint(n) });
  return { license, ...activated };
}

async function outcome(certificate: string, n: number, list: Awaited<ReturnType<typeof currentList>>['list'] | null) {
  const options = { publicKeys: await publicKeys(), product: c.product.id, fingerprint: fingerprint(n), appMajor: 1, now: now() };
  return (await verifyCertificate(certificate, { ...options, revocations: list })).outcome;
}

describe('revocation lists (RVL1) of a product', () => {
  it('a product that never needed a list announces seq 0, then serves a valid empty list with seq 1', async () => {
    const { revocationListSeq } = await licenseOnMachine(1);
    expect(revocationListSeq).toBe(0);
    const first = await currentList();
    expect([first.seq, first.list.seq, first.list.licenseCount, first.list.activationCount]).toEqual([1, 1, 0, 0]);
    expect((await t.engine.getRevocationList(c.product.id)).text).toBe(first.text);
    await expect(t.engine.getRevocationList('prd_missing')).rejects.toMatchObject({ code: 'unknown_product' });
  });

  it('a revoked license and a freed machine: their certificates read revoked with the list, valid without; validate announces the seq', async () => {
    const revoked = await licenseOnMachine(1);
    const freed = await licenseOnMachine(2);
    const other = await licenseOnMachine(3);
    await t.engine.revokeLicense(c.account.id, revoked.license.id);
    await t.engine.deleteActivation(c.account.id, freed.activation);
    const { seq, list } = await currentList();
    expect(seq).toBe(2);
    expect(await outcome(revoked.certificate, 1, null)).toBe('valid');
    expect(await outcome(revoked.certificate, 1, list)).toBe('revoked');
    expect(await outcome(freed.certificate, 2, list)).toBe('revoked');
    expect(await outcome(other.certificate, 3, list)).toBe('valid');
    const validated = await t.engine.validate({ product: c.product.id, key: other.license.key, fingerprint: fingerprint(3) });
    expect(validated.revocationListSeq).toBe(2);
    // The freed machine activated again, in the freeing's own second: its new certificate is issued
    // after the freeing (a second ahead of the clock) and passes; the old one stays revoked.
    const again = await t.engine.activate({ product: c.product.id, key: freed.license.key, fingerprint: fingerprint(2) });
    expect(await outcome(again.certificate, 2, list)).toBe('valid');
    expect(await outcome(freed.certificate, 2, (await currentList()).list)).toBe('revoked');
  });

  it('the client deactivate lists the machine; a suspension lists nothing; a refunded license reinstated leaves the list', async () => {
    const a = await licenseOnMachine(1);
    await t.engine.deactivate({ product: c.product.id, key: a.license.key, fingerprint: fingerprint(1) });
    const b = await licenseOnMachine(2);
    await t.engine.suspendLicense(c.account.id, b.license.id);
    let current = await currentList();
    expect([current.seq, current.list.licenseCount, current.list.activationCount]).toEqual([1, 0, 1]);
    expect(await outcome(a.certificate, 1, current.list)).toBe('revoked');
    await t.engine.reinstateLicense(c.account.id, b.license.id);
    expect((await currentList()).seq).toBe(1);
  });

  it('entries drop out at their until (the change plus 365 days, a whole UTC day): the next list has a higher seq and no entry', async () => {
    const a = await licenseOnMachine(1);
    await t.engine.revokeLicense(c.account.id, a.license.id);
    const revokedAt = now();
    const until = Math.ceil((revokedAt + REVOCATION_ENTRY_DAYS * 86_400) / 86_400) * 86_400;
    const before = await currentList();
    expect(before.list.licenseCount).toBe(1);
    t.clock.set(new Date((until - 1) * 1000).toISOString());
    expect((await currentList()).seq).toBe(before.seq);
    t.clock.set(new Date(until * 1000).toISOString());
    const after = await currentList();
    expect([after.seq, after.list.licenseCount, after.list.issuedAt]).toEqual([before.seq + 1, 0, until]);
    expect((await currentList()).seq).toBe(after.seq);
  });

  it('activating a new signing key signs the list again with it, under the next seq', async () => {
    const a = await licenseOnMachine(1);
    await t.engine.revokeLicense(c.account.id, a.license.id);
    const before = await currentList();
    await t.engine.createSigningKey(c.account.id, c.product.id);
    t.clock.advance(DAY);
    await t.engine.activateSigningKey(c.account.id, c.product.id, 'k2');
    const after = await currentList();
    expect([after.seq, after.list.kid, after.list.licenseCount]).toEqual([before.seq + 1, 'k2', 1]);
  });
});
