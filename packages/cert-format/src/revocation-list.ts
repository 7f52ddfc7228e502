// Types and constants of the RVL1 revocation list (docs/rvl1.md).
import type { EntryIndex } from './_internal/revocation-tables.js';

/**
 * The text every RVL1 revocation list starts with, including the dot.
 *
 * @example
 * ```ts
 * text.startsWith(REVOCATION_LIST_PREFIX); // true for an RVL1 list
 * ```
 */
export const REVOCATION_LIST_PREFIX = 'RVL1.';

/** A revoked, refunded or charged-back license: every certificate of it is blocked until `until`. */
export interface RevokedLicenseEntry {
  /** License ID (`lic_...`). */
  license: string;
  /**
   * Unix seconds at or after the latest `expiresAt` of any certificate of the license. The encoder
   * rounds it up to a whole UTC day; after it the entry blocks nothing and drops out.
   */
  until: number;
}

/** A machine freed from a license: its certificates issued at or before `freedAt` are blocked until `until`. */
export interface FreedActivationEntry {
  /** License ID the machine was freed from. */
  license: string;
  /** The machine's fingerprint (64 lowercase hex). */
  fingerprint: string;
  /** Unix seconds of the freeing; certificates with `issuedAt <= freedAt` are blocked. */
  freedAt: number;
  /**
   * Unix seconds at or after the latest `expiresAt` of any certificate the entry blocks; rounded up
   * to a whole UTC day by the encoder; at most 388 days after `freedAt`.
   */
  until: number;
}

/** What {@link encodeRevocationList} and `signRevocationList` take: the list's fields and its entries. */
export interface RevocationListInput {
  /** Signing key ID (`k1`, `k2`, ...) of the key that signs the list: the product's active key. */
  kid: string;
  /** Product ID (`prd_...`). */
  product: string;
  /** Positive integer, strictly increasing per product and never reused. */
  seq: number;
  /** Unix seconds. Entries whose rounded `until` is not after it are left out. */
  issuedAt: number;
  licenses: readonly RevokedLicenseEntry[];
  activations: readonly FreedActivationEntry[];
}

/**
 * The lookup tables of a list: one open-addressing hash table per entry table, keyed by the entry
 * keys of docs/rvl1.md. Plain typed arrays; read them through `matchRevocation`.
 */
export interface RevocationIndex {
  readonly licenses: Readonly<EntryIndex>;
  readonly activations: Readonly<EntryIndex>;
}

/** A list payload whose fields and entry tables are well formed (rule 3 of docs/rvl1.md). */
export interface RevocationListContent {
  v: 1;
  kid: string;
  product: string;
  seq: number;
  issuedAt: number;
  /** Number of license entries. */
  licenseCount: number;
  /** Number of activation entries. */
  activationCount: number;
  index: RevocationIndex;
}
