import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64urlEncode, decodeCertificate } from '@svc-licensing/cert-format';
import { createCertificateSigner, publicKeyFromSeed } from '@svc-licensing/cert-format/sign';
import { VERIFICATION_OUTCOMES, verifyCertificate } from '@svc-licensing/verifier';
import { basePayload, DAY, T0, TEST_FINGERPRINT, TEST_PRODUCT, TEST_SEED_K1 } from '../../../test-vectors/fixtures.js';

const signer = createCertificateSigner(TEST_SEED_K1);
const options = {
  publicKeys: { k1: base64urlEncode(publicKeyFromSeed(TEST_SEED_K1)) },
  product: TEST_PRODUCT,
  fingerprint: TEST_FINGERPRINT,
  appMajor: 1,
  now: T0 + 60,
};

describe('verifyCertificate', () => {
  it('returns the signed payload with a valid outcome', async () => {
    const result = await verifyCertificate(signer.sign(basePayload()), options);
    expect(result).toEqual({ outcome: 'valid', payload: basePayload() });
  });

  it('returns the payload with failures found after the signature check, and none before', async () => {
    expect(await verifyCertificate(signer.sign(basePayload({ status: 'refunded' })), options)).toEqual({
      outcome: 'not_usable',
      payload: basePayload({ status: 'refunded' }),
    });
    const text = signer.sign(basePayload());
    expect(await verifyCertificate(`${text.slice(0, -4)}AAAA`, options)).toEqual({ outcome: 'invalid_signature' });
    expect(await verifyCertificate('CRT1.x.y', options)).toEqual({ outcome: 'malformed' });
  });

  it('uses the system clock when now is not given', async () => {
    const issuedAt = Math.floor(Date.now() / 1000);
    const fresh = signer.sign(basePayload({ issuedAt, refreshAfter: issuedAt + DAY, expiresAt: issuedAt + 7 * DAY }));
    const { now: _now, ...withoutNow } = options;
    expect((await verifyCertificate(fresh, withoutNow)).outcome).toBe('valid');
    expect((await verifyCertificate(signer.sign(basePayload()), withoutNow)).outcome).toBe('expired');
  });

  it('never throws or rejects because of the certificate, whatever the input', async () => {
    const valid = signer.sign(basePayload());
    const [, payloadPart, signaturePart] = valid.split('.');
    const mutate = fc.tuple(fc.nat(valid.length - 1), fc.string({ minLength: 0, maxLength: 3 })).map(([i, s]) => valid.slice(0, i) + s + valid.slice(i + 1));
    const input = fc.oneof(
      fc.anything(),
      fc.string(),
      mutate,
      fc.json().map((json) => `CRT1.${Buffer.from(json).toString('base64url')}.${signaturePart}`),
      fc.string().map((s) => `CRT1.${payloadPart}.${s}`),
    );
    await fc.assert(
      fc.asyncProperty(input, async (certificate) => {
        const { outcome } = await verifyCertificate(certificate, options);
        expect(VERIFICATION_OUTCOMES).toContain(outcome);
        if (certificate !== valid) expect(outcome).not.toBe('valid');
      }),
      { numRuns: 1500 },
    );
  });

  it('verifies the received payload text, which decodes to the same object as a re-serialized one', async () => {
    const valid = signer.sign(basePayload());
    const decoded = decodeCertificate(valid);
    expect(decoded.ok && decoded.signingInput).toBe(valid.slice(0, valid.lastIndexOf('.')));
    // Same JSON object, different bytes (a space): the signature no longer covers it.
    const [, , signature] = valid.split('.');
    const respaced = `CRT1.${Buffer.from(JSON.stringify(basePayload(), null, 1)).toString('base64url')}.${signature}`;
    expect((await verifyCertificate(respaced, options)).outcome).toBe('invalid_signature');
  });

  it('rejects invalid options with a TypeError naming the option', async () => {
    const text = signer.sign(basePayload());
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ publicKeys: { k1: 'short' } }, /publicKeys\.k1/],
      [{ publicKeys: null }, /publicKeys/],
      [{ product: 1 }, /product/],
      [{ fingerprint: undefined }, /fingerprint/],
      [{ appMajor: 1.5 }, /appMajor/],
      [{ now: Number.NaN }, /now/],
      [{ highestIssuedAt: 'yesterday' }, /highestIssuedAt/],
      [{ backend: 'openssl' }, /backend/],
    ];
    for (const [override, message] of bad) {
      await expect(verifyCertificate(text, { ...options, ...override } as never)).rejects.toThrow(message);
    }
  });
});
