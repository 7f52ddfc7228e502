import type { RevocationListContent, RevocationSubject } from '@svc-licensing/cert-format';

/**
 * The outcomes of {@link verifyRevocationList}, in the order their rules are applied (docs/rvl1.md):
 * shape and prefix, then kid and signature, then field types and entry tables, then product.
 *
 * @example
 * ```ts
 * REVOCATION_LIST_OUTCOMES.includes(result.outcome); // always true
 * ```
 */
export const REVOCATION_LIST_OUTCOMES = ['valid', 'malformed', 'invalid_signature', 'wrong_product'] as const;

/** One of the four revocation-list outcomes. */
export type RevocationListOutcome = (typeof REVOCATION_LIST_OUTCOMES)[number];

/**
 * A revocation list that verified (signature, tables, product): pass it as `revocations` to
 * `verifyCertificate`. Its lookup tables are held by the verifier, so only a list this module
 * verified is accepted there.
 */
export interface RevocationList {
  /** Signing key ID that signed the list. */
  readonly kid: string;
  /** Product ID of the list. */
  readonly product: string;
  /** The list's sequence number: a higher one is newer; an SDK refuses one lower than it holds. */
  readonly seq: number;
  /** When the list was signed (Unix seconds). */
  readonly issuedAt: number;
  /** Number of revoked-license entries. */
  readonly licenseCount: number;
  /** Number of freed-machine entries. */
  readonly activationCount: number;
}

/** @internal Which entry of a verified list blocks a certificate at `now` (cert-format's `matchRevocation`). */
export type RevocationMatcher = (subject: RevocationSubject, now: number) => 'license' | 'activation' | null;

interface Verified {
  product: string;
  match: RevocationMatcher;
}

// The lookup of each list this module verified. `verifyCertificate` reaches the lookup code (SHA-256,
// the tables) only through here, so an app that never uses lists does not ship it.
const verified = new WeakMap<RevocationList, Verified>();

/** @internal The public view of a list that verified, remembered with its lookup. */
export function verifiedList(content: RevocationListContent, match: RevocationMatcher): RevocationList {
  const list: RevocationList = Object.freeze({
    kid: content.kid,
    product: content.product,
    seq: content.seq,
    issuedAt: content.issuedAt,
    licenseCount: content.licenseCount,
    activationCount: content.activationCount,
  });
  verified.set(list, { product: content.product, match });
  return list;
}

/** @internal The product and lookup of a list returned by `verifyRevocationList`; undefined for anything else. */
export function listLookup(list: unknown): Verified | undefined {
  return typeof list === 'object' && list !== null ? verified.get(list as RevocationList) : undefined;
}
