import type { Timestamp } from './timestamp.js';

/** A product: what licenses, plans and signing keys belong to (a stored record, like those of records.ts). */
export interface ProductRecord {
  id: string; // prd_
  accountId: string;
  name: string;
  keyPrefix: string;
  graceDays: number;
  offlineDays: number;
  /** RVL1 (docs/rvl1.md): the revocation list's `seq` (absent: 0, no list yet) and the Unix seconds of its last change (its `issuedAt`). */
  revocationSeq?: number;
  revocationsAt?: number;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}
