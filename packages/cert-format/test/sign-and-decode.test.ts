import { createPublicKey, verify } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CertFormatError, decodeCertificate, encodePayload, type CertificatePayload } from '@svc-licensing/cert-format';
import {
  createCertificateSigner,
  generateSigningKeyPair,
  pkcs8ToSeed,
  publicKeyFromSeed,
  seedToPkcs8,
  signCertificate,
} from '@svc-licensing/cert-format/sign';
import { basePayload, TEST_SEED_K1 } from '../../../test-vectors/fixtures.js';

const nodeVerify = (publicKey: Uint8Array, message: string, signature: Uint8Array) =>
  verify(null, Buffer.from(message), createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') }, format: 'jwk' }), signature);

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return CertFormatError.is(error) ? error.code : 'not a CertFormatError';
  }
  return 'no error';
};

describe('signing a certificate', () => {
  const certificate = createCertificateSigner(TEST_SEED_K1).sign(basePayload());

  it('produces CRT1.<payload>.<signature> whose signature covers the ASCII text CRT1.<payload>', () => {
    const [prefix, payloadPart, signaturePart, ...rest] = certificate.split('.');
    expect(prefix).toBe('CRT1');
    expect(rest).toEqual([]);
    expect(`CRT1.${payloadPart}`).toBe(encodePayload(basePayload()));
    const signature = Buffer.from(signaturePart!, 'base64url');
    expect(signature).toHaveLength(64);
    expect(nodeVerify(publicKeyFromSeed(TEST_SEED_K1), `CRT1.${payloadPart}`, signature)).toBe(true);
  });

  it('writes the 16 payload fields in the spec order, nothing else, without padding', () => {
    const json = Buffer.from(certificate.split('.')[1]!, 'base64url').toString('utf8');
    expect(Object.keys(JSON.parse(json))).toEqual([
      'v', 'kid', 'product', 'license', 'plan', 'entitlements', 'status', 'seats', 'licensee',
      'fingerprint', 'paidUntil', 'validUntil', 'maxMajor', 'issuedAt', 'refreshAfter', 'expiresAt',
    ]);
    expect(certificate).not.toContain('=');
    const withExtra = { ...basePayload(), extra: 'dropped' } as CertificatePayload;
    expect(createCertificateSigner(TEST_SEED_K1).sign(withExtra)).toBe(certificate);
  });

  it('gives the same certificate from the seed, from PKCS#8 DER and from signCertificate', () => {
    expect(createCertificateSigner({ pkcs8: seedToPkcs8(TEST_SEED_K1) }).sign(basePayload())).toBe(certificate);
    expect(signCertificate(basePayload(), TEST_SEED_K1)).toBe(certificate);
  });

  it('encodes non-ASCII licensee names as UTF-8', () => {
    const text = createCertificateSigner(TEST_SEED_K1).sign(basePayload({ licensee: 'Zoë Ünïcode 東京' }));
    const decoded = decodeCertificate(text);
    expect(decoded.ok && decoded.payload.licensee).toBe('Zoë Ünïcode 東京');
  });

  it('refuses a payload with a missing or mistyped field with invalid_payload', () => {
    const signer = createCertificateSigner(TEST_SEED_K1);
    expect(codeOf(() => signer.sign(basePayload({ seats: 1.5 })))).toBe('invalid_payload');
    expect(codeOf(() => signer.sign(basePayload({ status: 'lost' as never })))).toBe('invalid_payload');
    expect(codeOf(() => signer.sign(basePayload({ v: 2 as never })))).toBe('invalid_payload');
    expect(codeOf(() => signer.sign({ ...basePayload(), maxMajor: undefined } as never))).toBe('invalid_payload');
    expect(codeOf(() => encodePayload({ ...basePayload(), entitlements: [1] } as never))).toBe('invalid_payload');
  });

  it('signs in the thread pool to the same text as the synchronous sign, many at once', async () => {
    const signer = createCertificateSigner(TEST_SEED_K1);
    const payloads = Array.from({ length: 50 }, (_, i) => basePayload({ licensee: `Licensee ${i} – Zoë`, seats: i + 1 }));
    const texts = await Promise.all(payloads.map((p) => signer.signAsync(p)));
    expect(texts).toEqual(payloads.map((p) => signer.sign(p)));
    expect(new Set(texts).size).toBe(50);
  });

  it('rejects an invalid payload from signAsync with invalid_payload, without throwing synchronously', async () => {
    const signer = createCertificateSigner(TEST_SEED_K1);
    const pending = signer.signAsync(basePayload({ seats: 1.5 }));
    await expect(pending).rejects.toMatchObject({ code: 'invalid_payload' });
  });

  it('refuses keys that are not a 32-byte seed or Ed25519 PKCS#8 with invalid_private_key', () => {
    expect(codeOf(() => createCertificateSigner(new Uint8Array(31)))).toBe('invalid_private_key');
    expect(codeOf(() => createCertificateSigner({ pkcs8: new Uint8Array(48) }))).toBe('invalid_private_key');
    expect(codeOf(() => createCertificateSigner('seed' as never))).toBe('invalid_private_key');
  });
});

describe('signing keys', () => {
  it('derives the RFC 8032 public key from the RFC 8032 seed (test 1)', () => {
    const seed = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
    expect(Buffer.from(publicKeyFromSeed(seed)).toString('hex')).toBe('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
  });

  it('generates a key pair whose public key matches its seed, and PKCS#8 round-trips', () => {
    const { seed, publicKey } = generateSigningKeyPair();
    expect(seed).toHaveLength(32);
    expect(publicKeyFromSeed(seed)).toEqual(publicKey);
    expect(pkcs8ToSeed(seedToPkcs8(seed))).toEqual(seed);
  });
});

describe('decodeCertificate', () => {
  const certificate = createCertificateSigner(TEST_SEED_K1).sign(basePayload());

  it('returns the payload, kid, signature and the exact received signing input', () => {
    const decoded = decodeCertificate(certificate);
    if (!decoded.ok) throw new Error('expected ok');
    expect(decoded.payload).toEqual(basePayload());
    expect(decoded.kid).toBe('k1');
    expect(decoded.signingInput).toBe(certificate.slice(0, certificate.lastIndexOf('.')));
    expect(decoded.signature).toHaveLength(64);
  });

  it('rejects wrong part counts, another prefix, and payloads that are not a JSON object', () => {
    const [, payloadPart, sig] = certificate.split('.');
    const b64 = (text: string) => Buffer.from(text).toString('base64url');
    for (const text of [
      '', 'CRT1', `CRT1.${payloadPart}`, `${certificate}.x`, `CRT2.${payloadPart}.${sig}`, `crt1.${payloadPart}.${sig}`,
      `CRT1.${payloadPart}=.${sig}`, `CRT1..${sig}`, `CRT1.${b64('[1]')}.${sig}`, `CRT1.${b64('null')}.${sig}`,
      `CRT1.${b64('"x"')}.${sig}`, `CRT1.${b64('{"v":1')}.${sig}`, `CRT1.${Buffer.from([0x7b, 0xff, 0x7d]).toString('base64url')}.${sig}`,
    ]) {
      expect(decodeCertificate(text), text).toEqual({ ok: false });
    }
    expect(decodeCertificate(42)).toEqual({ ok: false });
  });

  it('keeps an undecodable signature part as an empty signature (a signature failure, not malformed)', () => {
    const [prefix, payloadPart] = certificate.split('.');
    const decoded = decodeCertificate(`${prefix}.${payloadPart}.not+base64`);
    expect(decoded.ok && decoded.signature).toEqual(new Uint8Array(0));
  });

  it('never throws, whatever the input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string().map((s) => `CRT1.${s}.${s}`), fc.anything()), (input) => {
        decodeCertificate(input);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('payload serialization', () => {
  it('is byte for byte JSON.stringify of the 16 fields in spec order, for any strings and integers', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('"', '\\', '\n', '\u2028', '\ud800', '\ud83d\ude80', 'é'));
    const integer = fc.maxSafeInteger();
    const nullable = fc.option(integer, { nil: null });
    const statuses = ['active', 'past_due', 'canceled', 'perpetual', 'expired', 'suspended', 'refunded', 'revoked'] as const;
    const payload = fc.record({
      v: fc.constant(1 as const), kid: text, product: text, license: text, plan: text, entitlements: fc.array(text),
      status: fc.constantFrom(...statuses), seats: integer, licensee: text, fingerprint: text,
      paidUntil: nullable, validUntil: nullable, maxMajor: nullable, issuedAt: integer, refreshAfter: integer, expiresAt: fc.oneof(integer, fc.constant(-0)),
    });
    fc.assert(
      fc.property(payload, (p) => {
        const expected = JSON.stringify({
          v: p.v, kid: p.kid, product: p.product, license: p.license, plan: p.plan, entitlements: p.entitlements, status: p.status,
          seats: p.seats, licensee: p.licensee, fingerprint: p.fingerprint, paidUntil: p.paidUntil, validUntil: p.validUntil,
          maxMajor: p.maxMajor, issuedAt: p.issuedAt, refreshAfter: p.refreshAfter, expiresAt: p.expiresAt,
        });
        const [, payloadPart] = encodePayload(p).split('.');
        expect(payloadPart).toBe(Buffer.from(expected, 'utf8').toString('base64url'));
        const signed = createCertificateSigner(TEST_SEED_K1).sign(p);
        expect(signed.split('.')[1]).toBe(payloadPart);
      }),
      { numRuns: 3000 },
    );
  });
});
