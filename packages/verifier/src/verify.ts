import { base64urlDecode, decodeCertificate, isLicenseStatus, isUsableStatus, type CertificatePayload } from '@svc-licensing/cert-format';
import { knownBackend, resolveBackend, type BackendChoice } from './backends.js';
import { CLOCK_ROLLBACK_TOLERANCE_SECONDS, type VerificationOutcome } from './outcomes.js';
import { publicKeyMap, type PublicKeys } from './public-keys.js';

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
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const backend = knownBackend(options.backend) ?? (await resolveBackend(options.backend));

  // Rule 1: three parts, CRT1 prefix, payload part is a JSON object.
  const decoded = decodeCertificate(certificate);
  if (!decoded.ok) return { outcome: 'malformed' };

  // Rule 2: kid names a configured key and the signature over the received text verifies.
  const { kid, signature, signingInput } = decoded;
  if (typeof kid !== 'string' || !Object.hasOwn(keys, kid) || signature.length !== 64) return { outcome: 'invalid_signature' };
  const publicKeyText = keys[kid]!;
  let verified: boolean;
  try {
    const answer = backend.verify(publicKeyBytes(publicKeyText), publicKeyText, signature, signingInput);
    verified = typeof answer === 'boolean' ? answer : await answer;
  } catch {
    verified = false;
  }
  if (!verified) return { outcome: 'invalid_signature' };

  // Rule 3: version, status and integer fields.
  const p = decoded.payload;
  if (p.v !== 1 || !isLicenseStatus(p.status) || !int(p.seats) || !int(p.issuedAt) || !int(p.refreshAfter) || !int(p.expiresAt)) {
    return { outcome: 'malformed' };
  }
  const payload = p as unknown as CertificatePayload;

  if (payload.product !== options.product) return { outcome: 'wrong_product', payload }; // rule 4
  if (payload.fingerprint !== options.fingerprint) return { outcome: 'wrong_machine', payload }; // rule 5
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

const decodedKeys = new Map<string, Uint8Array>();

function publicKeyBytes(text: string): Uint8Array {
  let bytes = decodedKeys.get(text);
  if (bytes === undefined) {
    bytes = base64urlDecode(text)!;
    if (decodedKeys.size >= 64) decodedKeys.clear();
    decodedKeys.set(text, bytes);
  }
  return bytes;
}

// Key sets already checked (by identity), so a verifier called in a loop checks its keys once.
const checkedKeySets = new WeakMap<object, Readonly<Record<string, string>>>();

function checkOptions(options: VerifyOptions): Readonly<Record<string, string>> {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const { publicKeys, product, fingerprint, appMajor, now, highestIssuedAt } = options;
  let keys = typeof publicKeys === 'object' && publicKeys !== null ? checkedKeySets.get(publicKeys) : undefined;
  if (keys === undefined) {
    const map = publicKeyMap(publicKeys);
    if (map === null) throw new TypeError('options.publicKeys must be an object of kid → base64url key, or the key list GET /products/{id}/keys returns');
    for (const [kid, text] of Object.entries(map)) {
      const bytes = typeof text === 'string' ? base64urlDecode(text) : undefined;
      if (bytes?.length !== 32) throw new TypeError(`options.publicKeys.${kid} must be base64url of a raw 32-byte Ed25519 public key`);
    }
    keys = map as Record<string, string>;
    checkedKeySets.set(publicKeys, keys);
  }
  if (typeof product !== 'string') throw new TypeError('options.product must be a string');
  if (typeof fingerprint !== 'string') throw new TypeError('options.fingerprint must be a string');
  if (!Number.isSafeInteger(appMajor) || appMajor < 0) throw new TypeError('options.appMajor must be a non-negative integer');
  if (now !== undefined && !Number.isFinite(now)) throw new TypeError('options.now must be Unix seconds');
  if (highestIssuedAt !== undefined && highestIssuedAt !== null && !Number.isFinite(highestIssuedAt)) {
    throw new TypeError('options.highestIssuedAt must be Unix seconds or null');
  }
  return keys;
}
