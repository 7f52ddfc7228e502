import { expect, it } from 'vitest';
import { decodeRevocationList, matchRevocation, parseRevocationPayload } from '@svc-licensing/cert-format';
import type { RevocationListContent } from '@svc-licensing/cert-format';
import type { Store } from '../_internal/store.js';
import { NOW, setup } from './engine-cases.js';

/** The fields and lookup tables of a list text (signature not checked: the verifier's tests do). */
export function readRevocationList(text: string): RevocationListContent {
  const decoded = decodeRevocationList(text);
  if (!decoded.ok) throw new Error('not an RVL1 list');
  const parsed = parseRevocationPayload(decoded.payload);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.list;
}

/** Revocation lists: changes racing on one product each take a seq of their own, none lost. */
export function revocationCases(store: () => Store): void {
  it('12 revokes and 4 freed machines racing on one product take 16 seqs, and the list holds every entry', async () => {
    const { engine, account, product, plan } = await setup(store());
    const made = await Promise.all(
      Array.from({ length: 16 }, (_, i) => engine.createLicense(account.id, { plan: plan.id, email: `r${i}@conformance.test`, paidUntil: '2031-01-01T00:00:00Z' })),
    );
    const licenses = made.map((m) => m.license);
    const fingerprint = 'c'.repeat(64);
    const freed = licenses.slice(12);
    const activations = await Promise.all(freed.map((l) => engine.activate({ product: product.id, key: l.key, fingerprint })));
    await Promise.all([
      ...licenses.slice(0, 12).map((l) => engine.revokeLicense(account.id, l.id)),
      ...activations.map((a) => engine.deleteActivation(account.id, a.activation)),
    ]);
    const { seq, text } = await engine.getRevocationList(product.id);
    expect(seq).toBe(16);
    const list = readRevocationList(text);
    expect([list.seq, list.licenseCount, list.activationCount]).toEqual([16, 12, 4]);
    const at = Math.floor(NOW / 1000);
    for (const l of licenses.slice(0, 12)) expect(matchRevocation(list, { license: l.id, fingerprint, issuedAt: at }, at)).toBe('license');
    for (const l of freed) expect(matchRevocation(list, { license: l.id, fingerprint, issuedAt: at }, at)).toBe('activation');
  });
}
