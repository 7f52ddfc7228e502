// Builds the published RVL1 test vectors (test-vectors/rvl1.json) deterministically: the CRT1 vectors'
// test-only seeds, fixed times, Ed25519 (deterministic). `generate.ts` writes the file.
import { createPrivateKey, sign as nodeSign } from 'node:crypto';
import { base64urlEncode, type CertificatePayload, type RevocationListInput } from '@svc-licensing/cert-format';
import { createCertificateSigner, publicKeyFromSeed, seedToPkcs8, signRevocationList } from '@svc-licensing/cert-format/sign';
import { basePayload, DAY, T0, TEST_FINGERPRINT, TEST_PRODUCT, TEST_SEED_K1, TEST_SEED_K2, TEST_SEED_UNKNOWN } from './fixtures.js';

export interface RevocationListCase {
  name: string;
  /** The list text. */
  list: string;
  /** The highest seq the reader has accepted before, or null when none. */
  heldSeq: number | null;
  expected: string;
  /** When `expected` is `valid`: what the list holds. */
  seq?: number;
  licenseCount?: number;
  activationCount?: number;
  product?: string;
}

export interface RevokedCertificateCase {
  name: string;
  /** The verified list to check the certificate against, or null for none (the nine rules only). */
  list: string | null;
  certificate: string;
  now: number;
  appMajor: number;
  highestIssuedAt: number | null;
  expected: string;
  fingerprint?: string;
}

export interface RevocationVectorFile {
  format: 'rvl1-test-vectors-v1';
  description: string;
  publicKeys: Record<string, string>;
  privateKeys: Record<string, string>;
  product: string;
  fingerprint: string;
  lists: RevocationListCase[];
  certificates: RevokedCertificateCase[];
}

const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const OTHER_FINGERPRINT = 'f'.repeat(64);

/** Signs arbitrary payload JSON text as `RVL1.<payload>.<signature>` (for payloads the encoder refuses). */
function signRaw(json: string, seed: Uint8Array): string {
  const key = createPrivateKey({ key: Buffer.from(seedToPkcs8(seed)), format: 'der', type: 'pkcs8' });
  const input = `RVL1.${b64(json)}`;
  return `${input}.${nodeSign(null, Buffer.from(input), key).toString('base64url')}`;
}
const payloadOf = (list: string): Record<string, unknown> => JSON.parse(Buffer.from(list.split('.')[1]!, 'base64url').toString('utf8'));
const tableOf = (list: string, table: 'licenses' | 'activations') => Buffer.from(payloadOf(list)[table] as string, 'base64url');
/** Re-signs a list with one payload field changed (validly signed by k1). */
const resigned = (list: string, change: Record<string, unknown>) => signRaw(JSON.stringify({ ...payloadOf(list), ...change }), TEST_SEED_K1);
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const withUnusedBit = (text: string) => text.slice(0, -1) + ALPHABET[ALPHABET.indexOf(text.slice(-1)) | 1];
const group = (until: number, entries: Buffer[]) => {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(until, 0);
  header.writeUInt32BE(entries.length, 4);
  return Buffer.concat([header, ...entries]);
};

/** The list every certificate case is checked against (issued two days after the certificates). */
export const LIST_ISSUED_AT = T0 + 2 * DAY;
function baseInput(over: Partial<RevocationListInput> = {}): RevocationListInput {
  return {
    kid: 'k1',
    product: TEST_PRODUCT,
    seq: 5,
    issuedAt: LIST_ISSUED_AT,
    licenses: [
      { license: 'lic_revoked0001', until: T0 + 7 * DAY },
      { license: 'lic_dropping001', until: T0 + 3 * DAY },
    ],
    activations: [
      { license: 'lic_test0001', fingerprint: TEST_FINGERPRINT, freedAt: T0 + DAY, until: T0 + 8 * DAY },
      { license: 'lic_test0002', fingerprint: TEST_FINGERPRINT, freedAt: T0 - DAY, until: T0 + 6 * DAY },
      { license: 'lic_test0003', fingerprint: TEST_FINGERPRINT, freedAt: T0, until: T0 + 7 * DAY },
    ],
    ...over,
  };
}
const list = (over: Partial<RevocationListInput> = {}, seed = TEST_SEED_K1) => signRevocationList(baseInput(over), seed);

function listCases(): RevocationListCase[] {
  const valid = list();
  const [, validPayload, validSignature] = valid.split('.') as [string, string, string];
  const c = (name: string, text: string, expected: string, extra: Partial<RevocationListCase> = {}): RevocationListCase => ({ name, list: text, heldSeq: null, expected, ...extra });
  const held = { seq: 5, licenseCount: 2, activationCount: 3 };
  const licenses = tableOf(valid, 'licenses');
  const flipped = Buffer.from(licenses);
  flipped[12] = flipped[12]! ^ 1;
  const [first, second] = [licenses.subarray(8, 16), licenses.subarray(24, 32)];
  return [
    c('valid list', valid, 'valid', held),
    c('valid empty list', list({ seq: 1, licenses: [], activations: [] }), 'valid', { seq: 1, licenseCount: 0, activationCount: 0 }),
    c('valid list signed by the second configured key k2', list({ kid: 'k2' }, TEST_SEED_K2), 'valid', held),
    c('tampered payload (seq raised, signature kept)', `RVL1.${b64(JSON.stringify({ ...payloadOf(valid), seq: 6 }))}.${validSignature}`, 'invalid_signature'),
    c('tampered entry table (one bit of a key, signature kept)', `RVL1.${b64(JSON.stringify({ ...payloadOf(valid), licenses: b64(flipped) }))}.${validSignature}`, 'invalid_signature'),
    c('unknown kid', list({ kid: 'k9' }, TEST_SEED_UNKNOWN), 'invalid_signature'),
    c('kid k1 but signed by k2', list({}, TEST_SEED_K2), 'invalid_signature'),
    c('signature part empty', `RVL1.${validPayload}.`, 'invalid_signature'),
    c('wrong product', list({ product: 'prd_someotherproduct' }), 'wrong_product'),
    c('case configures the list\'s product', list({ product: 'prd_someotherproduct' }), 'valid', { ...held, product: 'prd_someotherproduct' }),
    c('older seq than the one held', valid, 'older_seq', { heldSeq: 6 }),
    c('same seq as the one held', valid, 'valid', { ...held, heldSeq: 5 }),
    c('newer seq than the one held', valid, 'valid', { ...held, heldSeq: 4 }),
    // Rule 1: shape and prefix.
    c('rule 1: empty string', '', 'malformed'),
    c('rule 1: two parts', `RVL1.${validPayload}`, 'malformed'),
    c('rule 1: four parts', `${valid}.x`, 'malformed'),
    c('rule 1: lowercase prefix', `rvl1.${validPayload}.${validSignature}`, 'malformed'),
    c('rule 1: CRT1 prefix', `CRT1.${validPayload}.${validSignature}`, 'malformed'),
    c('rule 1: a CRT1 certificate given as a list', createCertificateSigner(TEST_SEED_K1).sign(basePayload()), 'malformed'),
    c('rule 1: payload not JSON', `RVL1.${b64('not json')}.${validSignature}`, 'malformed'),
    c('rule 1: payload a JSON array (validly signed)', signRaw('[]', TEST_SEED_K1), 'malformed'),
    c('rule 1: payload part broken by a line break', `RVL1.${validPayload.slice(0, 40)}\n${validPayload.slice(40)}.${validSignature}`, 'malformed'),
    // Rule 3: field types and tables (validly signed).
    c('rule 3: v 2', resigned(valid, { v: 2 }), 'malformed'),
    c('rule 3: seq 0', resigned(valid, { seq: 0 }), 'malformed'),
    c('rule 3: seq "5"', resigned(valid, { seq: '5' }), 'malformed'),
    c('rule 3: issuedAt missing', resigned(valid, { issuedAt: undefined }), 'malformed'),
    c('rule 3: activations missing', resigned(valid, { activations: undefined }), 'malformed'),
    c('rule 3: licenses in padded standard base64', resigned(valid, { licenses: licenses.toString('base64') }), 'malformed'),
    c('rule 3: licenses with a space', resigned(valid, { licenses: `${b64(licenses).slice(0, 8)} ${b64(licenses).slice(8)}` }), 'malformed'),
    // 32 bytes are 43 characters: the last one carries 2 unused bits; setting one gives the same bytes to a lax decoder.
    c('rule 3: licenses with a non-zero unused bit in the last character', resigned(valid, { licenses: withUnusedBit(b64(licenses)) }), 'malformed'),
    c('rule 3: truncated license table', resigned(valid, { licenses: b64(licenses.subarray(0, licenses.length - 1)) }), 'malformed'),
    c('rule 3: until not a whole day', resigned(valid, { licenses: b64(group(T0 + 3 * DAY + 1, [Buffer.from(first)])) }), 'malformed'),
    c('rule 3: groups out of order', resigned(valid, { licenses: b64(Buffer.concat([licenses.subarray(16), licenses.subarray(0, 16)])) }), 'malformed'),
    c('rule 3: a key twice in a table', resigned(valid, { licenses: b64(Buffer.concat([group(T0 + 3 * DAY, [Buffer.from(first)]), group(T0 + 7 * DAY, [Buffer.from(first)])])) }), 'malformed'),
    c('rule 3: keys out of order in a group', resigned(valid, { licenses: b64(group(T0 + 7 * DAY, [Buffer.from(first), Buffer.from(second)].sort(Buffer.compare).reverse())) }), 'malformed'),
    c('rule 3: empty group', resigned(valid, { licenses: b64(group(T0 + 7 * DAY, [])) }), 'malformed'),
    // Pairs of failing rules: the earlier decides.
    c('order 1 before 2: payload not JSON and bad signature', `RVL1.${b64('[')}.AAAA`, 'malformed'),
    c('order 2 before 3: v 2 with a bad signature', `RVL1.${b64(JSON.stringify({ ...payloadOf(valid), v: 2 }))}.${validSignature}`, 'invalid_signature'),
    c('order 3 before 4: truncated table and wrong product', resigned(valid, { product: 'prd_x', activations: 'AAAA' }), 'malformed'),
    c('order 4 before seq: wrong product and older seq', list({ product: 'prd_x' }), 'wrong_product', { heldSeq: 9 }),
  ];
}

function certificateCases(): RevokedCertificateCase[] {
  const signer = createCertificateSigner(TEST_SEED_K1);
  const cert = (overrides: Partial<CertificatePayload> = {}) => signer.sign(basePayload(overrides));
  const at = { list: list(), now: T0 + 3600, appMajor: 1, highestIssuedAt: null };
  const c = (name: string, certificate: string, expected: string, extra: Partial<RevokedCertificateCase> = {}): RevokedCertificateCase => ({ name, certificate, ...at, expected, ...extra });
  const revokedLicense = cert({ license: 'lic_revoked0001' });
  return [
    c('no list: the nine rules only', cert({ license: 'lic_revoked0001' }), 'valid', { list: null }),
    c('listed license', revokedLicense, 'revoked'),
    c('listed license, before the list was issued (clock behind the list)', revokedLicense, 'revoked', { now: T0 + 60 }),
    c('listed license, one second before its drop-out instant', cert({ license: 'lic_dropping001' }), 'revoked', { now: T0 + 3 * DAY - 1 }),
    c('entry past its drop-out instant is ignored', cert({ license: 'lic_dropping001' }), 'valid', { now: T0 + 3 * DAY }),
    c('listed machine freed after the certificate was issued', cert({ license: 'lic_test0001' }), 'revoked'),
    c('listed machine freed before the certificate was issued', cert({ license: 'lic_test0002' }), 'valid'),
    c('listed machine freed in the second the certificate was issued', cert({ license: 'lic_test0003' }), 'revoked'),
    c('listed machine, certificate issued one second after the freeing', cert({ license: 'lic_test0003', issuedAt: T0 + 1, refreshAfter: T0 + 1 + DAY }), 'valid', { now: T0 + 3600 }),
    c('freed machine of another license is not this license\'s machine', cert({ license: 'lic_test0004' }), 'valid'),
    c('listed license, another machine configured', cert({ license: 'lic_revoked0001', fingerprint: OTHER_FINGERPRINT }), 'revoked', { fingerprint: OTHER_FINGERPRINT }),
    c('listed machine entry does not name another machine of the license', cert({ license: 'lic_test0001', fingerprint: OTHER_FINGERPRINT }), 'valid', { fingerprint: OTHER_FINGERPRINT }),
    c('empty list', revokedLicense, 'valid', { list: list({ seq: 1, licenses: [], activations: [] }) }),
    // Order: revoked comes after rule 5 and before rule 6.
    c('order 4 before revoked: wrong product', cert({ license: 'lic_revoked0001', product: 'prd_x' }), 'wrong_product'),
    c('order 5 before revoked: wrong machine', cert({ license: 'lic_revoked0001', fingerprint: OTHER_FINGERPRINT }), 'wrong_machine'),
    c('order revoked before 6: listed license, certificate expired', cert({ license: 'lic_revoked0001', expiresAt: T0 + 5 * DAY }), 'revoked', { now: T0 + 6 * DAY }),
    c('order revoked before 7: listed license, status suspended', cert({ license: 'lic_revoked0001', status: 'suspended' }), 'revoked'),
    c('order revoked before 8: listed license, version not covered', cert({ license: 'lic_revoked0001', maxMajor: 1 }), 'revoked', { appMajor: 2 }),
    c('order revoked before 9: listed machine, clock rolled back', cert({ license: 'lic_test0001' }), 'revoked', { highestIssuedAt: T0 + 3 * DAY }),
    c('an RVL1 list given as a certificate', at.list, 'malformed'),
  ];
}

export function buildRevocationVectors(): RevocationVectorFile {
  return {
    format: 'rvl1-test-vectors-v1',
    description:
      'RVL1 revocation-list vectors (docs/rvl1.md). TEST-ONLY KEYS, the same as crt1.json: privateKeys are public test seeds; never use them for real lists. Times are Unix seconds. Regenerate with `pnpm vectors`.',
    publicKeys: { k1: base64urlEncode(publicKeyFromSeed(TEST_SEED_K1)), k2: base64urlEncode(publicKeyFromSeed(TEST_SEED_K2)) },
    privateKeys: { k1: base64urlEncode(TEST_SEED_K1), k2: base64urlEncode(TEST_SEED_K2) },
    product: TEST_PRODUCT,
    fingerprint: TEST_FINGERPRINT,
    lists: listCases(),
    certificates: certificateCases(),
  };
}

/** The exact bytes of test-vectors/rvl1.json. */
export const serializeRevocationVectors = (file: RevocationVectorFile): string => `${JSON.stringify(file, null, 2)}\n`;
