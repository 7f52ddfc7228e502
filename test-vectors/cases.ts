// Builds the published CRT1 test vectors (test-vectors/crt1.json) deterministically: fixed test-only
// seeds, fixed times, and Ed25519 signatures (deterministic by RFC 8032). `generate.ts` writes the file.
import { sign as nodeSign, createPrivateKey } from 'node:crypto';
import { base64urlEncode, hashLicenseKey, normalizeLicenseKey, type CertificatePayload } from '@svc-licensing/cert-format';
import { createCertificateSigner, publicKeyFromSeed, seedToPkcs8 } from '@svc-licensing/cert-format/sign';
import { basePayload, DAY, T0, TEST_FINGERPRINT, TEST_PRODUCT, TEST_SEED_K1, TEST_SEED_K2, TEST_SEED_UNKNOWN } from './fixtures.js';

export interface VectorCase {
  name: string;
  certificate: string;
  now: number;
  appMajor: number;
  highestIssuedAt: number | null;
  expected: string;
  product?: string;
  fingerprint?: string;
}

export interface VectorFile {
  format: 'crt1-test-vectors-v1';
  description: string;
  publicKeys: Record<string, string>;
  privateKeys: Record<string, string>;
  product: string;
  fingerprint: string;
  cases: VectorCase[];
  keyNormalization: { input: string; normalized: string; sha256: string }[];
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const OTHER_FINGERPRINT = 'f'.repeat(64);

/** Signs arbitrary payload JSON text (never re-serialized), for payloads the typed signer refuses. */
function signRaw(json: string, seed: Uint8Array, over: 'signing input' | 'payload part only' = 'signing input'): string {
  const key = createPrivateKey({ key: Buffer.from(seedToPkcs8(seed)), format: 'der', type: 'pkcs8' });
  const input = `CRT1.${b64(json)}`;
  const signature = nodeSign(null, Buffer.from(over === 'signing input' ? input : b64(json)), key);
  return `${input}.${signature.toString('base64url')}`;
}

const k1 = createCertificateSigner(TEST_SEED_K1);
const k2 = createCertificateSigner(TEST_SEED_K2);
const unknown = createCertificateSigner(TEST_SEED_UNKNOWN);
const cert = (overrides: Partial<CertificatePayload> = {}) => k1.sign(basePayload(overrides));
const rawCert = (fields: Record<string, unknown>, seed = TEST_SEED_K1) => signRaw(JSON.stringify(fields), seed);
const perpetual = (overrides: Partial<CertificatePayload> = {}) =>
  cert({ status: 'perpetual', plan: 'lifetime', paidUntil: null, validUntil: null, maxMajor: 1, expiresAt: T0 + 30 * DAY, ...overrides });

/** Replaces the signature of `certificate` with `signature` bytes. */
const withSignature = (certificate: string, signature: Uint8Array) => `${certificate.slice(0, certificate.lastIndexOf('.'))}.${base64urlEncode(signature)}`;
const parts = (certificate: string) => certificate.split('.') as [string, string, string];

// L, the order of the Ed25519 base point: adding it to S gives the same group element but S >= L.
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
function malleate(certificate: string): string {
  const signature = Buffer.from(parts(certificate)[2], 'base64url');
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(signature[i]!);
  s += L;
  for (let i = 32; i < 64; i++) {
    signature[i] = Number(s & 0xffn);
    s >>= 8n;
  }
  return withSignature(certificate, signature);
}

/** A signed certificate whose payload part is then given its correct `=` padding (rule 1 decides first). */
function padded(): string {
  for (let extra = ''; ; extra += 'x') {
    const text = rawCert({ ...(basePayload() as unknown as Record<string, unknown>), licensee: `Padded${extra}` });
    const [, payloadPart, signaturePart] = parts(text);
    if (payloadPart.length % 4 !== 0) return `CRT1.${payloadPart}${'='.repeat(4 - (payloadPart.length % 4))}.${signaturePart}`;
  }
}

export function buildVectors(): VectorFile {
  const valid = cert();
  const [, validPayload, validSignature] = parts(valid);
  const base = basePayload() as unknown as Record<string, unknown>;
  const at = { now: T0 + 3600, appMajor: 1, highestIssuedAt: null };
  const c = (name: string, certificate: string, expected: string, extra: Partial<VectorCase> = {}): VectorCase => ({ name, certificate, ...at, expected, ...extra });

  const cases: VectorCase[] = [
    // The spec's 12 published cases.
    c('valid', valid, 'valid'),
    c('expired (now at expiresAt)', valid, 'expired', { now: T0 + 7 * DAY }),
    c('tampered payload', `CRT1.${b64(JSON.stringify({ ...base, seats: 100 }))}.${validSignature}`, 'invalid_signature'),
    c('unknown kid', unknown.sign(basePayload({ kid: 'k9' })), 'invalid_signature'),
    c('wrong product', cert({ product: 'prd_someotherproduct' }), 'wrong_product'),
    c('wrong machine', cert({ fingerprint: OTHER_FINGERPRINT }), 'wrong_machine'),
    c('revoked status', cert({ status: 'revoked' }), 'not_usable'),
    c('perpetual with maxMajor 1, app major 2', perpetual(), 'version_not_covered', { appMajor: 2 }),
    c('perpetual with maxMajor 1, app major 1', perpetual(), 'valid'),
    c('clock rolled back', valid, 'clock_tampered', { highestIssuedAt: T0 + 3 * DAY }),
    c('malformed', `CRT1.${b64('not json')}.${validSignature}`, 'malformed'),
    c('bad prefix', `CRT2.${validPayload}.${validSignature}`, 'malformed'),

    // Rule 1: shape of the text and of the payload part.
    c('rule 1: empty string', '', 'malformed'),
    c('rule 1: two parts', `CRT1.${validPayload}`, 'malformed'),
    c('rule 1: four parts', `${valid}.x`, 'malformed'),
    c('rule 1: lowercase prefix', `crt1.${validPayload}.${validSignature}`, 'malformed'),
    c('rule 1: leading space', ` ${valid}`, 'malformed'),
    c('rule 1: empty payload part', `CRT1..${validSignature}`, 'malformed'),
    c('rule 1: payload part with correct base64 padding', padded(), 'malformed'),
    c('rule 1: payload part in standard base64 (+ and /)', `CRT1.${Buffer.from(JSON.stringify({ ...base, licensee: '>>>???' })).toString('base64').replace(/=+$/, '')}.${validSignature}`, 'malformed'),
    c('rule 1: payload is a JSON array (validly signed)', rawCert([base] as never), 'malformed'),
    c('rule 1: payload is JSON null (validly signed)', signRaw('null', TEST_SEED_K1), 'malformed'),
    c('rule 1: payload is not UTF-8 (validly signed)', (() => {
      const key = createPrivateKey({ key: Buffer.from(seedToPkcs8(TEST_SEED_K1)), format: 'der', type: 'pkcs8' });
      const input = `CRT1.${Buffer.from([0x7b, 0xff, 0xfe, 0x7d]).toString('base64url')}`;
      return `${input}.${nodeSign(null, Buffer.from(input), key).toString('base64url')}`;
    })(), 'malformed'),

    // Rule 2: key and signature.
    c('rule 2: second configured key k2', k2.sign(basePayload({ kid: 'k2' })), 'valid'),
    c('rule 2: kid k1 but signed by k2', k2.sign(basePayload({ kid: 'k1' })), 'invalid_signature'),
    c('rule 2: kid missing', rawCert({ ...base, kid: undefined }), 'invalid_signature'),
    c('rule 2: kid not a string', rawCert({ ...base, kid: 1 }), 'invalid_signature'),
    c('rule 2: kid names an Object prototype property', rawCert({ ...base, kid: 'toString' }), 'invalid_signature'),
    c('rule 2: kid __proto__', rawCert({ ...base, kid: '__proto__' }), 'invalid_signature'),
    c('rule 2: signature part empty', `CRT1.${validPayload}.`, 'invalid_signature'),
    c('rule 2: signature part not base64url', `CRT1.${validPayload}.${validSignature.slice(0, -2)}+/`, 'invalid_signature'),
    c('rule 2: signature 63 bytes', withSignature(valid, Buffer.from(validSignature, 'base64url').subarray(0, 63)), 'invalid_signature'),
    c('rule 2: signature with S + L (non-canonical, malleated)', malleate(valid), 'invalid_signature'),
    c('rule 2: signature over the payload part without CRT1.', signRaw(JSON.stringify(base), TEST_SEED_K1, 'payload part only'), 'invalid_signature'),
    c('rule 2: received payload is verified as is (spaces, other key order)', signRaw(`{ "kid": "k1", ${JSON.stringify(base).slice(1).replace('"kid":"k1",', '')}`, TEST_SEED_K1), 'valid'),
    c('rule 2: extra payload fields are signed and accepted', rawCert({ ...base, future: { x: 1 } }), 'valid'),

    // Rule 3: field types.
    c('rule 3: v 2 (validly signed)', rawCert({ ...base, v: 2 }), 'malformed'),
    c('rule 3: v "1"', rawCert({ ...base, v: '1' }), 'malformed'),
    c('rule 3: unknown status', rawCert({ ...base, status: 'lost' }), 'malformed'),
    c('rule 3: seats 1.5', rawCert({ ...base, seats: 1.5 }), 'malformed'),
    c('rule 3: seats "1"', rawCert({ ...base, seats: '1' }), 'malformed'),
    c('rule 3: issuedAt missing', rawCert({ ...base, issuedAt: undefined }), 'malformed'),
    c('rule 3: refreshAfter null', rawCert({ ...base, refreshAfter: null }), 'malformed'),
    c('rule 3: expiresAt a string', rawCert({ ...base, expiresAt: String(T0 + 7 * DAY) }), 'malformed'),

    // Rules 4 and 5, including the per-case product and fingerprint overrides.
    c('rule 4: product differs only in case', cert({ product: TEST_PRODUCT.toUpperCase() }), 'wrong_product'),
    c('rule 4: case configures the certificate\'s product', cert({ product: 'prd_someotherproduct' }), 'valid', { product: 'prd_someotherproduct' }),
    c('rule 5: fingerprint in uppercase hex', cert({ fingerprint: TEST_FINGERPRINT.toUpperCase() }), 'wrong_machine'),
    c('rule 5: case configures the certificate\'s fingerprint', cert({ fingerprint: OTHER_FINGERPRINT }), 'valid', { fingerprint: OTHER_FINGERPRINT }),

    // Rule 6: expiry boundary; refreshAfter is not an outcome.
    c('rule 6: one second before expiresAt', valid, 'valid', { now: T0 + 7 * DAY - 1 }),
    c('rule 6: after expiresAt', valid, 'expired', { now: T0 + 40 * DAY }),
    c('rule 6: past refreshAfter, before expiresAt', valid, 'valid', { now: T0 + 2 * DAY }),

    // Rule 7: every status.
    ...(['active', 'past_due', 'canceled', 'perpetual'] as const).map((status) => c(`rule 7: status ${status} is usable`, cert({ status }), 'valid')),
    ...(['expired', 'suspended', 'refunded', 'revoked'] as const).map((status) => c(`rule 7: status ${status} is not usable`, cert({ status }), 'not_usable')),

    // Rule 8: version boundary.
    c('rule 8: maxMajor null covers any major', cert({ maxMajor: null }), 'valid', { appMajor: 99 }),
    c('rule 8: app major equal to maxMajor 3', cert({ maxMajor: 3 }), 'valid', { appMajor: 3 }),
    c('rule 8: app major maxMajor + 1', cert({ maxMajor: 3 }), 'version_not_covered', { appMajor: 4 }),
    c('rule 8: maxMajor 0, app major 0', cert({ maxMajor: 0 }), 'valid', { appMajor: 0 }),
    c('rule 8: maxMajor missing covers nothing', rawCert({ ...base, maxMajor: undefined }), 'version_not_covered'),

    // Rule 9: rollback tolerance boundary.
    c('rule 9: now exactly highestIssuedAt - 86400', valid, 'valid', { now: T0 + 3600, highestIssuedAt: T0 + 3600 + DAY }),
    c('rule 9: now one second before highestIssuedAt - 86400', valid, 'clock_tampered', { now: T0 + 3600, highestIssuedAt: T0 + 3601 + DAY }),
    c('rule 9: highestIssuedAt older than the certificate', valid, 'valid', { highestIssuedAt: T0 - 30 * DAY }),
    c('rule 9: certificate issued more than a day after now counts as seen', valid, 'clock_tampered', { now: T0 - DAY - 1 }),
    c('rule 9: certificate issued exactly a day after now', valid, 'valid', { now: T0 - DAY }),

    // Pairs of failing rules: the earlier rule decides.
    c('order 1 before 2: bad payload and bad signature', `CRT1.${b64('[1,2]')}.AAAA`, 'malformed'),
    c('order 2 before 3: v 2 with a bad signature', `CRT1.${b64(JSON.stringify({ ...base, v: 2 }))}.${validSignature}`, 'invalid_signature'),
    c('order 2 before 4: wrong product with a bad signature', `CRT1.${b64(JSON.stringify({ ...base, product: 'prd_x' }))}.${validSignature}`, 'invalid_signature'),
    c('order 3 before 4: unknown status and wrong product', rawCert({ ...base, status: 'lost', product: 'prd_x' }), 'malformed'),
    c('order 4 before 5: wrong product and wrong machine', cert({ product: 'prd_x', fingerprint: OTHER_FINGERPRINT }), 'wrong_product'),
    c('order 5 before 6: wrong machine and expired', cert({ fingerprint: OTHER_FINGERPRINT }), 'wrong_machine', { now: T0 + 8 * DAY }),
    c('order 6 before 7: expired and revoked', cert({ status: 'revoked' }), 'expired', { now: T0 + 8 * DAY }),
    c('order 7 before 8: revoked and version not covered', cert({ status: 'revoked', maxMajor: 1 }), 'not_usable', { appMajor: 2 }),
    c('order 8 before 9: version not covered and clock rolled back', perpetual(), 'version_not_covered', { appMajor: 2, highestIssuedAt: T0 + 3 * DAY }),
    c('order 6 before 9: expired and clock rolled back', valid, 'expired', { now: T0 + 8 * DAY, highestIssuedAt: T0 + 30 * DAY }),
    c('order 7 before 9: suspended and clock rolled back', cert({ status: 'suspended' }), 'not_usable', { highestIssuedAt: T0 + 3 * DAY }),

    // Text content.
    c('non-ASCII licensee (UTF-8 payload)', cert({ licensee: 'Zoë Ünïcode 東京 🚀' }), 'valid'),
  ];

  const keyInputs = ['acme-7kq2m-xw9fd-3nhpz-tb4rc', '  Acme-7KQ2M - xw9fd-3NHPZ -TB4RC\t\n', 'ACME-7KQ2M-XW9FD-3NHPZ-TB4RC'];
  return {
    format: 'crt1-test-vectors-v1',
    description:
      'CRT1 certificate verification vectors. TEST-ONLY KEYS: privateKeys are public test seeds (base64url of the raw 32-byte Ed25519 seed); never use them for real certificates. Times are Unix seconds. Regenerate with `pnpm vectors`.',
    publicKeys: { k1: base64urlEncode(publicKeyFromSeed(TEST_SEED_K1)), k2: base64urlEncode(publicKeyFromSeed(TEST_SEED_K2)) },
    privateKeys: { k1: base64urlEncode(TEST_SEED_K1), k2: base64urlEncode(TEST_SEED_K2) },
    product: TEST_PRODUCT,
    fingerprint: TEST_FINGERPRINT,
    cases,
    keyNormalization: keyInputs.map((input) => ({ input, normalized: normalizeLicenseKey(input), sha256: hashLicenseKey(input) })),
  };
}

/** The exact bytes of test-vectors/crt1.json. */
export const serializeVectors = (file: VectorFile): string => `${JSON.stringify(file, null, 2)}\n`;
