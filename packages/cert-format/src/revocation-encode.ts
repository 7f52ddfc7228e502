import { CertFormatError } from './errors.js';
import { isFingerprint } from './fingerprint.js';
import { REVOCATION_LIST_PREFIX, type RevocationListInput } from './revocation-list.js';
import {
  activationEntryKey,
  DAY_SECONDS,
  licenseEntryKey,
  MAX_FREED_AGE,
  packActivationTable,
  packLicenseTable,
  type ActivationRow,
  type LicenseRow,
} from './_internal/revocation-tables.js';
import { encodeBulk } from './_internal/base64url-bulk.js';
import { utf8Encode } from './_internal/utf8.js';

const MAX_U32 = 0xffff_ffff;
const isTime = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= MAX_U32;
const roundUpToDay = (seconds: number): number => Math.ceil(seconds / DAY_SECONDS) * DAY_SECONDS;
const invalid = (message: string): never => {
  throw new CertFormatError('invalid_argument', message);
};

/**
 * The signing input of an RVL1 revocation list: `RVL1.` followed by the base64url (no padding) of
 * the payload JSON `{ v, kid, product, seq, issuedAt, licenses, activations }` (docs/rvl1.md). The
 * entries are hashed into their keys, each `until` is rounded up to a whole UTC day, entries whose
 * rounded `until` is not after `issuedAt` are left out (they block nothing any more), repeated
 * entries are merged (latest `freedAt` and `until`), and the tables are sorted: the same entries
 * always give the same text. Throws `CertFormatError` (`invalid_argument`) for an input that breaks
 * the format: a field of the wrong type, a `freedAt` after `issuedAt`, an `until` more than 388 days
 * after `freedAt`, a fingerprint that is not 64 lowercase hex.
 *
 * @example
 * ```ts
 * const signingInput = encodeRevocationList({
 *   kid: 'k1', product: 'prd_123', seq: 7, issuedAt: 1_767_225_600,
 *   licenses: [{ license: 'lic_456', until: 1_767_830_400 }],
 *   activations: [{ license: 'lic_789', fingerprint, freedAt: 1_767_200_000, until: 1_767_830_400 }],
 * }); // 'RVL1.eyJ2IjoxLCJraWQiOiJrMSIs...'
 * ```
 */
export function encodeRevocationList(input: RevocationListInput): string {
  if (typeof input !== 'object' || input === null) invalid('expected the list fields and entries');
  const { kid, product, seq, issuedAt, licenses, activations } = input;
  if (typeof kid !== 'string' || kid === '') invalid('kid must be a non-empty string');
  if (typeof product !== 'string' || product === '') invalid('product must be a non-empty string');
  if (!Number.isSafeInteger(seq) || seq < 1) invalid('seq must be a positive integer');
  if (!isTime(issuedAt)) invalid('issuedAt must be Unix seconds (an integer from 0 to 2^32 - 1)');
  if (!Array.isArray(licenses) || !Array.isArray(activations)) invalid('licenses and activations must be arrays');
  const payload = {
    v: 1,
    kid,
    product,
    seq,
    issuedAt,
    licenses: encodeBulk(packLicenseTable(licenseRows(licenses, issuedAt))),
    activations: encodeBulk(packActivationTable(activationRows(activations, issuedAt))),
  };
  return REVOCATION_LIST_PREFIX + encodeBulk(utf8Encode(JSON.stringify(payload)));
}

function checkUntil(until: unknown, at: string): number {
  if (!isTime(until)) invalid(`${at}.until must be Unix seconds (an integer from 0 to 2^32 - 1)`);
  const rounded = roundUpToDay(until as number);
  if (rounded > MAX_U32) invalid(`${at}.until is past the last day a list can hold (2106)`);
  return rounded;
}

function licenseRows(entries: RevocationListInput['licenses'], issuedAt: number): LicenseRow[] {
  const rows = new Map<string, LicenseRow>();
  entries.forEach((entry, i) => {
    const at = `licenses[${i}]`;
    if (typeof entry !== 'object' || entry === null) invalid(`${at} must be { license, until }`);
    if (typeof entry.license !== 'string' || entry.license === '') invalid(`${at}.license must be a license ID`);
    const until = checkUntil(entry.until, at);
    if (until <= issuedAt) return;
    const key = licenseEntryKey(entry.license);
    const id = `${key.hi}:${key.lo}`;
    const seen = rows.get(id);
    if (seen === undefined) rows.set(id, { ...key, until });
    else seen.until = Math.max(seen.until, until);
  });
  return [...rows.values()];
}

function activationRows(entries: RevocationListInput['activations'], issuedAt: number): ActivationRow[] {
  const rows = new Map<string, ActivationRow>();
  entries.forEach((entry, i) => {
    const at = `activations[${i}]`;
    if (typeof entry !== 'object' || entry === null) invalid(`${at} must be { license, fingerprint, freedAt, until }`);
    if (typeof entry.license !== 'string' || entry.license === '') invalid(`${at}.license must be a license ID`);
    if (!isFingerprint(entry.fingerprint)) invalid(`${at}.fingerprint must be 64 lowercase hex characters`);
    if (!isTime(entry.freedAt)) invalid(`${at}.freedAt must be Unix seconds (an integer from 0 to 2^32 - 1)`);
    if (entry.freedAt > issuedAt) invalid(`${at}.freedAt is after the list's issuedAt`);
    const until = checkUntil(entry.until, at);
    if (until <= issuedAt) return;
    if (until - entry.freedAt > MAX_FREED_AGE) invalid(`${at}.until is more than 388 days after freedAt`);
    const key = activationEntryKey(entry.license, entry.fingerprint);
    const id = `${key.hi}:${key.lo}`;
    const seen = rows.get(id);
    if (seen === undefined) rows.set(id, { ...key, until, freedAt: entry.freedAt });
    else {
      seen.until = Math.max(seen.until, until);
      seen.freedAt = Math.max(seen.freedAt, entry.freedAt);
    }
  });
  return [...rows.values()];
}
