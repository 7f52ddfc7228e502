import { describe, expect, it } from 'vitest';
import { REVOCATION_LIST_OUTCOMES, verifyCertificate, verifyRevocationList, type BackendName } from '@svc-licensing/verifier';
import { loadRevocationVectors } from '../../../test-vectors/load.js';

const file = loadRevocationVectors();
const options = { publicKeys: file.publicKeys, product: file.product };
const validList = file.lists.find((c) => c.name === 'valid list')!.list;
const listedLicense = file.certificates.find((c) => c.name === 'listed license')!;
const certificateOptions = (c = listedLicense) => ({ publicKeys: file.publicKeys, product: file.product, fingerprint: file.fingerprint, appMajor: c.appMajor, now: c.now });

describe('verifyRevocationList', () => {
  it('returns the verified list\'s fields, frozen, and only for a valid list', async () => {
    const result = await verifyRevocationList(validList, options);
    expect(result).toEqual({ outcome: 'valid', list: { kid: 'k1', product: file.product, seq: 5, issuedAt: expect.any(Number), licenseCount: 2, activationCount: 3 } });
    expect(Object.isFrozen(result.outcome === 'valid' && result.list)).toBe(true);
    expect(await verifyRevocationList(validList, { ...options, product: 'prd_x' })).toEqual({ outcome: 'wrong_product' });
  });

  it('never throws or rejects for any input; node, webcrypto and noble agree on random corruptions', async () => {
    const fc = (await import('fast-check')).default;
    for (const input of [undefined, null, 7, {}, [], 'RVL1', 'RVL1..', `${validList}\n`]) {
      expect(REVOCATION_LIST_OUTCOMES).toContain((await verifyRevocationList(input, options)).outcome);
    }
    const corrupt = fc
      .tuple(fc.nat(validList.length - 1), fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.='))
      .map(([i, ch]) => validList.slice(0, i) + ch + validList.slice(i + 1));
    const backends: BackendName[] = ['node', 'webcrypto', 'noble'];
    await fc.assert(
      fc.asyncProperty(corrupt, async (text) => {
        const outcomes = await Promise.all(backends.map(async (backend) => (await verifyRevocationList(text, { ...options, backend })).outcome));
        expect(new Set(outcomes).size, text).toBe(1);
        if (text !== validList) expect(outcomes[0]).not.toBe('valid');
      }),
      { numRuns: 150 },
    );
  });

  it('rejects with a TypeError for invalid options (a programmer error)', async () => {
    await expect(verifyRevocationList(validList, { publicKeys: { k1: 'short' }, product: file.product })).rejects.toThrow(TypeError);
    await expect(verifyRevocationList(validList, { publicKeys: file.publicKeys, product: 5 as never })).rejects.toThrow(TypeError);
    await expect(verifyRevocationList(validList, null as never)).rejects.toThrow(TypeError);
  });
});

describe('verifyCertificate with revocations', () => {
  it('takes only a list verifyRevocationList returned, for the same product', async () => {
    const checked = await verifyRevocationList(validList, options);
    if (checked.outcome !== 'valid') throw new Error('the valid list does not verify');
    expect((await verifyCertificate(listedLicense.certificate, { ...certificateOptions(), revocations: checked.list })).outcome).toBe('revoked');
    // A look-alike object is not a verified list.
    await expect(verifyCertificate(listedLicense.certificate, { ...certificateOptions(), revocations: { ...checked.list } })).rejects.toThrow(/returned by verifyRevocationList/);
    const other = file.lists.find((c) => c.name === 'case configures the list\'s product')!;
    const otherList = await verifyRevocationList(other.list, { ...options, product: other.product! });
    if (otherList.outcome !== 'valid') throw new Error('the other product\'s list does not verify');
    await expect(verifyCertificate(listedLicense.certificate, { ...certificateOptions(), revocations: otherList.list })).rejects.toThrow(/not of options.product/);
  });

  it('without revocations (absent or null) applies the nine rules only', async () => {
    for (const revocations of [undefined, null]) {
      const result = await verifyCertificate(listedLicense.certificate, { ...certificateOptions(), ...(revocations === undefined ? {} : { revocations }) });
      expect(result).toMatchObject({ outcome: 'valid', payload: { license: 'lic_revoked0001' } });
    }
  });

  it('carries the payload with revoked, so an app can say which license was revoked', async () => {
    const checked = await verifyRevocationList(validList, options);
    const result = await verifyCertificate(listedLicense.certificate, { ...certificateOptions(), revocations: checked.outcome === 'valid' ? checked.list : null });
    expect(result).toMatchObject({ outcome: 'revoked', payload: { license: 'lic_revoked0001', licensee: 'Test Licensee' } });
  });
});
