/**
 * Stored records of RVL1 revocation lists (docs/rvl1.md, "What the server signs"): one entry per
 * revoked license or freed machine of a product. The product record holds the list's `seq` and the
 * instant of its last change (`ProductRecord.revocationSeq`, `revocationsAt`).
 */

/** One entry of a product's revocation list. */
export interface RevocationEntryRecord {
  /**
   * `rve_` + hex of SHA-256 of the entry's subject (the license, or the license and fingerprint), so
   * an entry is found, replaced and removed by ID without a read of its own.
   */
  id: string;
  accountId: string;
  productId: string;
  licenseId: string;
  /** The freed machine's fingerprint (64 lowercase hex); null for a license entry. */
  fingerprint: string | null;
  /** Unix seconds of the freeing (activation entries); null for a license entry. */
  freedAt: number | null;
  /** Unix seconds, a whole UTC day: the drop-out instant, at or after the latest `expiresAt` of any certificate the entry blocks. */
  until: number;
}

/** A product's current signed revocation list (`GET /v1/products/{id}/revocations`). */
export interface RevocationListText {
  product: string;
  /** The list's `seq`: its `ETag` is `"rvl1-<seq>"`. */
  seq: number;
  /** `RVL1.<payload>.<signature>`: the same bytes for a `seq` on every instance. */
  text: string;
}

/** A signed list kept in memory: the text of a `seq` never changes, so any instance may reuse it. */
export interface CachedRevocationList extends RevocationListText {
  /** Unix seconds of the earliest `until` among its entries (Infinity without entries): from then on a new `seq` is due. */
  nextDropOut: number;
}
