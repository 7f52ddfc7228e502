import { decodeRevocationList, matchRevocation, parseRevocationPayload } from '@svc-licensing/cert-format';
import { knownBackend, resolveBackend, type BackendChoice } from './backends.js';
import type { PublicKeys } from './public-keys.js';
import { verifiedList, type RevocationList, type RevocationListOutcome } from './revocation-list.js';
import { signatureVerifies, trustedKeys } from './signature.js';

/** Options of {@link verifyRevocationList}. */
export interface RevocationListOptions {
  /** Trusted signing keys, in either form `verifyCertificate` takes (see {@link PublicKeys}). */
  publicKeys: PublicKeys;
  /** The product ID the application belongs to (`prd_...`). */
  product: string;
  /** Ed25519 backend; `auto` (default) as for `verifyCertificate`. */
  backend?: BackendChoice;
}

/** Result of {@link verifyRevocationList}: `list` is present when the outcome is `valid`. */
export type RevocationListResult = { outcome: 'valid'; list: RevocationList } | { outcome: Exclude<RevocationListOutcome, 'valid'> };

/**
 * Verifies an RVL1 revocation list offline with the keys the application already trusts, applying
 * the rules of docs/rvl1.md in CRT1's order and returning the first failure: `malformed` (shape and
 * prefix), `invalid_signature` (kid and signature over the exact received `RVL1.<payload>` text),
 * `malformed` (field types and entry tables), `wrong_product`; else `valid` with the list, ready to
 * pass as `revocations` to `verifyCertificate`. It never throws or rejects because of the list,
 * whatever the input; it rejects with a `TypeError` for invalid options. A list of 100,000 entries
 * (about 1.8 MB) is checked and indexed once, in tens of milliseconds; keep the result and reuse it.
 * Which list is newer is the caller's business (`seq`); the client SDK refuses an older one.
 *
 * @example
 * ```ts
 * import { verifyRevocationList, verifyCertificate } from '@svc-licensing/verifier';
 * const checked = await verifyRevocationList(listText, { publicKeys, product: 'prd_123' });
 * if (checked.outcome === 'valid') {
 *   const { outcome } = await verifyCertificate(certificate, { publicKeys, product: 'prd_123', fingerprint, appMajor: 2, revocations: checked.list });
 *   if (outcome === 'revoked') lockTheApp();
 * }
 * ```
 */
export async function verifyRevocationList(text: unknown, options: RevocationListOptions): Promise<RevocationListResult> {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const keys = trustedKeys(options.publicKeys);
  if (typeof options.product !== 'string') throw new TypeError('options.product must be a string');
  const backend = knownBackend(options.backend) ?? (await resolveBackend(options.backend));

  // Rule 1: three parts, RVL1 prefix, payload part is a JSON object.
  const decoded = decodeRevocationList(text);
  if (!decoded.ok) return { outcome: 'malformed' };

  // Rule 2: kid names a configured key and the signature over the received text verifies.
  const answer = signatureVerifies(keys, decoded.kid, decoded.signature, decoded.signingInput, backend);
  if (!(typeof answer === 'boolean' ? answer : await answer)) return { outcome: 'invalid_signature' };

  // Rule 3: field types and well-formed entry tables.
  const parsed = parseRevocationPayload(decoded.payload);
  if (!parsed.ok) return { outcome: 'malformed' };

  // Rule 4: the application's product.
  if (parsed.list.product !== options.product) return { outcome: 'wrong_product' };
  const content = parsed.list;
  return { outcome: 'valid', list: verifiedList(content, (subject, now) => matchRevocation(content, subject, now)) };
}
