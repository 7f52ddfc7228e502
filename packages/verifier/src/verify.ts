import { decodeCertificate, isLicenseStatus, isUsableStatus, type CertificatePayload } from '@svc-licensing/cert-format';
import { knownBackend, resolveBackend, type BackendChoice } from './backends.js';
import { CLOCK_ROLLBACK_TOLERANCE_SECONDS, type VerificationOutcome } from './outcomes.js';
import type { PublicKeys } from './public-keys.js';
import { listLookup, type RevocationList, type RevocationMatcher } from './revocation-list.js';
import { signatureVerifies, trustedKeys } from './signature.js';

/** Options of {@link verifyCertificate}. */
export interface VerifyOptions {
  /**
   * Trusted signing keys: kid → base64url (no padding) of the raw 32-byte Ed25519 public key, or the
   * key list `GET /v1/products/{id}/keys` returns, as is (see {@link PublicKeys}).
   */
  publicKeys: PublicKeys;
  /** The product ID the application belongs to (`prd_...`). */
  product: string;
  /** This machine's fingerprint (see `machineFingerprint` in @svc-licensing/cert-format). */
  fingerprint: string;
  /** The application's major version. */
  appMajor: number;
  /** The current time, Unix seconds; defaults to the system clock. */
  now?: number;
  /** The highest `issuedAt` ever seen on this machine, for the clock-rollback rule; null or absent when none is stored. */
  highestIssuedAt?: number | null;
  /** Ed25519 backend; `auto` (default) uses node:crypto in Node, WebCrypto where it has Ed25519, else @noble/ed25519. */
  backend?: BackendChoice;
  /**
   * A revocation list of this product returned by `verifyRevocationList` (RVL1, docs/rvl1.md). When
   * given, a certificate it names gives `revoked`, checked after rule 5 and before rule 6. Absent or
   * null: the nine rules only.
   */
  revocations?: RevocationList | null;
}

/**
 * Result of {@link verifyCertificate}. `payload` is present once the signature has been verified
 * (every outcome except `malformed` and `invalid_signature`), so a caller can show, for instance,
 * the licensee of an expired certificate. Rule 3 checks `v`, `status`, `seats` and the three times;
 * the other fields are as the issuer signed them.
 */
export type VerificationResult =
  | { outcome: 'valid'; payload: CertificatePayload }
  | { outcome: Exclude<VerificationOutcome, 'valid'>; payload?: CertificatePayload };

const int = (value: unknown): value is number => Number.isSafeInteger(value);

/**
 * Verifies a CRT1 certificate offline, applying the spec's nine rules in order and returning the
 * first failure: `malformed`, `invalid_signature`, `malformed` (field types), `wrong_product`,
 * `wrong_machine`, `expired`, `not_usable`, `version_not_covered`, `clock_tampered`; else `valid`.
 * With a verified revocation list in `revocations`, a certificate whose license the list names, or
 * whose machine it names as freed from that license at or after the certificate's `issuedAt`, gives
 * `revoked` right after rule 5 (entries past their drop-out instant are ignored).
 * The signature is checked over the exact received `CRT1.<payload>` text. It never throws or rejects
 * because of the certificate, whatever the input; it rejects with a `TypeError` for invalid options
 * (a programmer error), such as a public key that is not 32 bytes of base64url.
 *
 * The clock rule compares `now` with the highest of `highestIssuedAt` and this certificate's own
 * `issuedAt`: a certificate issued more than a day after `now` is also `clock_tampered`.
 *
 * @example
 * ```ts
 * import { verifyCertificate } from '@svc-licensing/verifier';
 * const { outcome, payload } = await verifyCertificate(storedText, {
 *   publicKeys: { k1: 'Fvx3...base64url' },
 *   product: 'prd_123',
 *   fingerprint,
 *   appMajor: 2,
 *   highestIssuedAt: storedHighest,
 * });
 * if (outcome === 'valid') enableFeatures(payload.entitlements);
 * ```
 */
export async function verifyCertificate(certificate: unknown, options: VerifyOptions): Promise<VerificationResult> {
  const keys = checkOptions(options);
  const revocations = checkRevocations(options);
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const backend = knownBackend(options.backend) ?? (await resolveBackend(options.backend));

  // Rule 1: three parts, CRT1 prefix, payload part is a JSON object.
  const decoded = decodeCertificate(certificate);
  if (!decoded.ok) return { outcome: 'malformed' };

  // Rule 2: kid names a configured key and the signature over the received text verifies.
  const answer = signatureVerifies(keys, decoded.kid, decoded.signature, decoded.signingInput, backend);
  if (!(typeof answer === 'boolean' ? answer : await answer)) return { outcome: 'invalid_signature' };

  // Rule 3: version, status and integer fields.
  const p = decoded.payload;
  if (p.v !== 1 || !isLicenseStatus(p.status) || !int(p.seats) || !int(p.issuedAt) || !int(p.refreshAfter) || !int(p.expiresAt)) {
    return { outcome: 'malformed' };
  }
  const payload = p as unknown as CertificatePayload;

  if (payload.product !== options.product) return { outcome: 'wrong_product', payload }; // rule 4
  if (payload.fingerprint !== options.fingerprint) return { outcome: 'wrong_machine', payload }; // rule 5
  // RVL1: the revocation list, when given, names the license or this machine's freeing.
  if (revocations !== null && revocations(payload, now) !== null) return { outcome: 'revoked', payload };
  if (!(now < payload.expiresAt)) return { outcome: 'expired', payload }; // rule 6
  if (!isUsableStatus(payload.status)) return { outcome: 'not_usable', payload }; // rule 7
  // Rule 8: only an explicit null means "no limit"; a missing or non-numeric maxMajor covers nothing.
  const maxMajor: unknown = p.maxMajor;
  if (maxMajor !== null && !(typeof maxMajor === 'number' && options.appMajor <= maxMajor)) {
    return { outcome: 'version_not_covered', payload };
  }
  // Rule 9: clock rollback against the highest issuedAt seen, this certificate included.
  const highest = Math.max(options.highestIssuedAt ?? payload.issuedAt, payload.issuedAt);
  if (now < highest - CLOCK_ROLLBACK_TOLERANCE_SECONDS) return { outcome: 'clock_tampered', payload };

  return { outcome: 'valid', payload };
}

function checkOptions(options: VerifyOptions): Readonly<Record<string, string>> {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const { publicKeys, product, fingerprint, appMajor, now, highestIssuedAt } = options;
  const keys = trustedKeys(publicKeys);
  if (typeof product !== 'string') throw new TypeError('options.product must be a string');
  if (typeof fingerprint !== 'string') throw new TypeError('options.fingerprint must be a string');
  if (!Number.isSafeInteger(appMajor) || appMajor < 0) throw new TypeError('options.appMajor must be a non-negative integer');
  if (now !== undefined && !Number.isFinite(now)) throw new TypeError('options.now must be Unix seconds');
  if (highestIssuedAt !== undefined && highestIssuedAt !== null && !Number.isFinite(highestIssuedAt)) {
    throw new TypeError('options.highestIssuedAt must be Unix seconds or null');
  }
  return keys;
}

function checkRevocations(options: VerifyOptions): RevocationMatcher | null {
  const { revocations } = options;
  if (revocations === undefined || revocations === null) return null;
  const lookup = listLookup(revocations);
  if (lookup === undefined) throw new TypeError('options.revocations must be a list returned by verifyRevocationList');
  if (lookup.product !== options.product) {
    throw new TypeError(`options.revocations is the list of ${lookup.product}, not of options.product ${options.product}`);
  }
  return lookup.match;
}
