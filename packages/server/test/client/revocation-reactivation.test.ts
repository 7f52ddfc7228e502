import { decodeCertificate } from '@svc-licensing/cert-format';
import { verifyCertificate, verifyRevocationList } from '@svc-licensing/verifier';
import { expect, it } from 'vitest';
import { fingerprint, licensed } from '../support/fixtures.js';
import { createHarness, describeEveryStore, type Harness } from '../support/harness.js';

// Issue 29: a machine freed and activated again within one whole second (a user moving a seat, an
// SDK retry) gets a certificate its freeing's entry does not block, while the certificates issued
// before the freeing stay blocked (docs/rvl1.md, "What the server signs", rule 6). The engine on
// each real store, its clock never moving: every call below happens in the same second.

async function checker(h: Harness, productId: string, fp: string) {
  const keys = await h.engine.listSigningKeys(h.accountId, productId);
  const publicKeys = Object.fromEntries(keys.data.map((k) => [k.kid, k.publicKey]));
  const { text } = await h.engine.getRevocationList(productId);
  const checked = await verifyRevocationList(text, { publicKeys, product: productId });
  if (checked.outcome !== 'valid') throw new Error(`the list is ${checked.outcome}`);
  const now = Math.floor(h.clock.now() / 1000);
  return {
    seq: checked.list.seq,
    outcome: async (certificate: string) =>
      (await verifyCertificate(certificate, { publicKeys, product: productId, fingerprint: fp, appMajor: 1, now, revocations: checked.list })).outcome,
  };
}

function payloadOf(certificate: string) {
  const decoded = decodeCertificate(certificate);
  if (!decoded.ok) throw new Error('not a certificate');
  return decoded.payload as { issuedAt: number; expiresAt: number };
}
const issuedAt = (certificate: string) => payloadOf(certificate).issuedAt;

describeEveryStore('a machine activated again in the second it was freed', (setup) => {
  it('client deactivate, then activate and validate in the same second: the new certificates pass the new list, the old one is revoked; freed and activated again, the same', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h);
    const fp = fingerprint(product.id, 1);
    const machine = { product: product.id, key: license.key, fingerprint: fp };
    const second = Math.floor(h.clock.now() / 1000);

    const first = await h.engine.activate(machine);
    await h.engine.deactivate(machine);
    const again = await h.engine.activate(machine);
    const refreshed = await h.engine.validate(machine);
    expect(Math.floor(h.clock.now() / 1000)).toBe(second);
    let list = await checker(h, product.id, fp);
    expect(await list.outcome(first.certificate)).toBe('revoked');
    expect(await list.outcome(again.certificate)).toBe('valid');
    expect(await list.outcome(refreshed.certificate)).toBe('valid');
    // Issued one second ahead of the clock: after the freeing's second, never before the old one's.
    expect([issuedAt(first.certificate), issuedAt(again.certificate), issuedAt(refreshed.certificate)]).toEqual([second, second + 1, second + 1]);

    // Freed again in that second: the entry now blocks what the second activation issued (a second ahead) too.
    await h.engine.deactivate(machine);
    const third = await h.engine.activate(machine);
    list = await checker(h, product.id, fp);
    expect(await list.outcome(first.certificate)).toBe('revoked');
    expect(await list.outcome(again.certificate)).toBe('revoked');
    expect(await list.outcome(refreshed.certificate)).toBe('revoked');
    expect(await list.outcome(third.certificate)).toBe('valid');
    expect(third.revocationListSeq).toBe(list.seq);
  });

  it('the vendor frees the machine (DELETE) and the machine activates again in that second: its new certificate passes, its old one is revoked', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h);
    const fp = fingerprint(product.id, 2);
    const machine = { product: product.id, key: license.key, fingerprint: fp };
    const first = await h.engine.activate(machine);
    await h.engine.deleteActivation(h.accountId, first.activation);
    const again = await h.engine.activate(machine);
    const list = await checker(h, product.id, fp);
    expect(await list.outcome(first.certificate)).toBe('revoked');
    expect(await list.outcome(again.certificate)).toBe('valid');
    // A machine never freed is issued certificates of the current second, as before.
    const other = await h.engine.activate({ ...machine, fingerprint: fingerprint(product.id, 3) });
    expect(issuedAt(other.certificate)).toBe(Math.floor(h.clock.now() / 1000));
  });

  it('a floating seat checked in and out again in one second: the new certificate passes, the old one is revoked, and it ends with its lease', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h, {}, { seatMode: 'floating', leaseSeconds: 600 });
    const fp = fingerprint(product.id, 4);
    const machine = { product: product.id, key: license.key, fingerprint: fp };
    const first = await h.engine.activate(machine);
    await h.engine.deactivate(machine);
    const again = await h.engine.activate(machine);
    const list = await checker(h, product.id, fp);
    expect(await list.outcome(first.certificate)).toBe('revoked');
    expect(await list.outcome(again.certificate)).toBe('valid');
    const payload = payloadOf(again.certificate);
    expect(payload.expiresAt).toBe(Date.parse(again.lease!.leaseExpiresAt) / 1000);
    expect(payload.expiresAt - payload.issuedAt).toBe(600);
  });
});
