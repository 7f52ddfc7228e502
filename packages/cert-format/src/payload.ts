import { CertFormatError } from './errors.js';
import { isLicenseStatus, type LicenseStatus } from './status.js';
import { base64urlEncode } from './base64url.js';
import { utf8Encode } from './_internal/utf8.js';

/**
 * The text every CRT1 certificate starts with, including the dot.
 *
 * @example
 * ```ts
 * text.startsWith(CERTIFICATE_PREFIX); // true for a CRT1 certificate
 * ```
 */
export const CERTIFICATE_PREFIX = 'CRT1.';

/**
 * Seconds after `issuedAt` at which a client should refresh its certificate (one day).
 *
 * @example
 * ```ts
 * const refreshAfter = issuedAt + REFRESH_INTERVAL_SECONDS;
 * ```
 */
export const REFRESH_INTERVAL_SECONDS = 86_400;

/**
 * The signed payload of a CRT1 certificate: the spec's 16 fields, serialized in this order.
 * Times are Unix seconds.
 */
export interface CertificatePayload {
  /** Format version, always 1. */
  v: 1;
  /** Signing key ID (`k1`, `k2`, ...). */
  kid: string;
  /** Product ID (`prd_...`). */
  product: string;
  /** License ID (`lic_...`). */
  license: string;
  /** Plan code (not the plan ID). */
  plan: string;
  entitlements: string[];
  /** License status at issue time. */
  status: LicenseStatus;
  seats: number;
  /** Customer name. */
  licensee: string;
  /** Machine fingerprint the certificate is bound to (64 lowercase hex). */
  fingerprint: string;
  /** End of the paid period; null for perpetual licenses. */
  paidUntil: number | null;
  /** `paidUntil` plus grace; null for perpetual licenses. */
  validUntil: number | null;
  /** Highest application major version covered; null = no limit. */
  maxMajor: number | null;
  issuedAt: number;
  /** `issuedAt` + 86400. */
  refreshAfter: number;
  /** End of offline validity (see {@link certificateTimes}). */
  expiresAt: number;
}

/** Input of {@link certificateTimes}. */
export interface CertificateTimesInput {
  kind: 'subscription' | 'trial' | 'perpetual';
  /** Unix seconds. */
  issuedAt: number;
  /** `paidUntil` plus grace, or null (perpetual). Ignored for perpetual licenses. */
  validUntil: number | null;
  /** The plan's `offlineDays` override when set, else the product's. */
  offlineDays: number;
}

const int = (value: unknown): value is number => Number.isSafeInteger(value);
const intOrNull = (value: unknown): value is number | null => value === null || int(value);

/**
 * The certificate times of the spec: `refreshAfter` = issuedAt + 86400; `expiresAt` =
 * min(validUntil, issuedAt + offlineDays × 86400) for subscription and trial licenses (the offline
 * bound alone when validUntil is null), issuedAt + offlineDays × 86400 for perpetual ones.
 *
 * @example
 * ```ts
 * certificateTimes({ kind: 'subscription', issuedAt: 1_700_000_000, validUntil: 1_700_100_000, offlineDays: 7 });
 * // { refreshAfter: 1_700_086_400, expiresAt: 1_700_100_000 }
 * ```
 */
export function certificateTimes(input: CertificateTimesInput): { refreshAfter: number; expiresAt: number } {
  const { kind, issuedAt, validUntil, offlineDays } = input;
  if (kind !== 'subscription' && kind !== 'trial' && kind !== 'perpetual') {
    throw new CertFormatError('invalid_argument', `kind must be subscription, trial or perpetual, got ${String(kind)}`);
  }
  if (!int(issuedAt) || issuedAt < 0) throw new CertFormatError('invalid_argument', 'issuedAt must be a non-negative integer');
  if (!int(offlineDays) || offlineDays < 1) throw new CertFormatError('invalid_argument', 'offlineDays must be a positive integer');
  if (!intOrNull(validUntil)) throw new CertFormatError('invalid_argument', 'validUntil must be an integer or null');
  const offlineEnd = issuedAt + offlineDays * 86_400;
  const expiresAt = kind === 'perpetual' || validUntil === null ? offlineEnd : Math.min(validUntil, offlineEnd);
  return { refreshAfter: issuedAt + REFRESH_INTERVAL_SECONDS, expiresAt };
}

/**
 * Throws `CertFormatError` (`invalid_payload`) unless `payload` has the 16 fields with the spec's types.
 *
 * @example
 * ```ts
 * assertCertificatePayload(JSON.parse(json)); // now typed as CertificatePayload
 * ```
 */
export function assertCertificatePayload(payload: unknown): asserts payload is CertificatePayload {
  if (typeof payload !== 'object' || payload === null) throw new CertFormatError('invalid_payload', 'payload must be an object');
  const p = payload as Record<string, unknown>;
  if (p.v !== 1) invalidField('v', '1');
  for (const field of STRING_FIELDS) if (typeof p[field] !== 'string') invalidField(field, 'a string');
  const entitlements = p.entitlements;
  if (!Array.isArray(entitlements)) invalidField('entitlements', 'an array of strings');
  for (const e of entitlements as unknown[]) if (typeof e !== 'string') invalidField('entitlements', 'an array of strings');
  if (!isLicenseStatus(p.status)) invalidField('status', 'a license status');
  for (const field of INTEGER_FIELDS) if (!int(p[field])) invalidField(field, 'an integer');
  for (const field of NULLABLE_INTEGER_FIELDS) if (!intOrNull(p[field])) invalidField(field, 'an integer or null');
}

const STRING_FIELDS = ['kid', 'product', 'license', 'plan', 'licensee', 'fingerprint'] as const;
const INTEGER_FIELDS = ['seats', 'issuedAt', 'refreshAfter', 'expiresAt'] as const;
const NULLABLE_INTEGER_FIELDS = ['paidUntil', 'validUntil', 'maxMajor'] as const;

function invalidField(field: string, expected: string): never {
  throw new CertFormatError('invalid_payload', `payload.${field} must be ${expected}`);
}

// Strings JSON.stringify would write as "<s>" unchanged: no quote, backslash, control character or
// surrogate. Others go through JSON.stringify, so escaping is never hand-written.
const PLAIN_STRING = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;
const jsonString = (s: string): string => (PLAIN_STRING.test(s) ? `"${s}"` : JSON.stringify(s));

/**
 * @internal The payload JSON with the 16 fields in the spec's order (extra properties dropped).
 * Equal to `JSON.stringify` of the ordered object (a property test checks it) for a payload that
 * passed {@link assertCertificatePayload}, built directly because issuing is on the hot path.
 */
export function payloadJson(p: CertificatePayload): string {
  let entitlements = '';
  for (let i = 0; i < p.entitlements.length; i++) entitlements += (i === 0 ? '' : ',') + jsonString(p.entitlements[i]!);
  return (
    `{"v":${p.v},"kid":${jsonString(p.kid)},"product":${jsonString(p.product)},"license":${jsonString(p.license)}` +
    `,"plan":${jsonString(p.plan)},"entitlements":[${entitlements}],"status":${jsonString(p.status)},"seats":${p.seats}` +
    `,"licensee":${jsonString(p.licensee)},"fingerprint":${jsonString(p.fingerprint)},"paidUntil":${p.paidUntil}` +
    `,"validUntil":${p.validUntil},"maxMajor":${p.maxMajor},"issuedAt":${p.issuedAt},"refreshAfter":${p.refreshAfter}` +
    `,"expiresAt":${p.expiresAt}}`
  );
}

/**
 * The signing input of a certificate: `CRT1.` followed by the base64url (no padding) of the payload
 * JSON, fields in the spec's order. The signature is computed over the ASCII bytes of this text.
 * Throws `CertFormatError` (`invalid_payload`) when a field is missing or has the wrong type.
 *
 * @example
 * ```ts
 * const signingInput = encodePayload(payload); // 'CRT1.eyJ2IjoxLCJraWQiOiJrMSIs...'
 * ```
 */
export function encodePayload(payload: CertificatePayload): string {
  assertCertificatePayload(payload);
  return CERTIFICATE_PREFIX + base64urlEncode(utf8Encode(payloadJson(payload)));
}
