import { expect, it } from 'vitest';
import { decodeRevocationList, matchRevocation, parseRevocationPayload } from '@svc-licensing/cert-format';
import type { RevocationListContent } from '@svc-licensing/cert-format';
import type { Store, StoreTx } from '../_internal/store.js';
import type { RevocationEntryRecord } from '../_internal/records.js';
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

  it('recordRevocationEntry, where the store has it, inserts or replaces the entry and moves seq and revocationsAt as the engine would', async () => {
    const { account, product } = await setup(store());
    const entry: RevocationEntryRecord = { id: 'rve_conformance', accountId: account.id, productId: product.id, licenseId: 'lic_conformance', fingerprint: null, freedAt: null, until: 1_924_992_000 };
    const run = <T>(work: (tx: StoreTx) => Promise<T>): Promise<T> => store().transaction(work);
    const record = (e: RevocationEntryRecord, at: number) => run(async (tx) => (tx.recordRevocationEntry ? (await tx.recordRevocationEntry(e, at), true) : false));
    if (!(await record(entry, 1_900_000_000))) return;
    const read = () => run(async (tx) => ({ product: await tx.get('products', product.id), entries: await tx.findMany('revocationEntries', { productId: product.id }) }));
    let now = await read();
    expect([now.product?.revocationSeq, now.product?.revocationsAt, now.product?.name]).toEqual([1, 1_900_000_000, product.name]);
    expect(now.entries).toEqual([entry]);
    // The same entry again (a machine freed again) is replaced; an earlier instant leaves revocationsAt where it is.
    const again: RevocationEntryRecord = { ...entry, fingerprint: 'b'.repeat(64), freedAt: 1_899_000_000, until: 1_930_000_000 };
    await record(again, 1_899_000_000);
    now = await read();
    expect([now.product?.revocationSeq, now.product?.revocationsAt]).toEqual([2, 1_900_000_000]);
    expect(now.entries).toEqual([again]);
    // A unit that fails after it keeps neither write.
    await expect(run(async (tx) => { await tx.recordRevocationEntry!({ ...entry, id: 'rve_rolled_back' }, 1_950_000_000); throw new Error('stop'); })).rejects.toThrow('stop');
    now = await read();
    expect([now.product?.revocationSeq, now.product?.revocationsAt, now.entries.length]).toEqual([2, 1_900_000_000, 1]);
  });
}
