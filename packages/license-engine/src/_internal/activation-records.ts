import type { Timestamp } from './timestamp.js';

/** A machine activated on a license (a stored record, like those of records.ts). */
export interface ActivationRecord {
  id: string; // act_
  accountId: string;
  licenseId: string;
  /** 64 lowercase hex characters. */
  fingerprint: string;
  name: string | null;
  platform: string | null;
  appVersion: string | null;
  createdAt: Timestamp;
  /** Last activate or validate, to within `LAST_SEEN_RESOLUTION_MS` (60 s): validate writes only when it moves further. */
  lastSeenAt: Timestamp;
  /**
   * Floating plans: where the machine's lease ends (live while now < it + 5 s). null (or absent)
   * on machine plans. Never in a certificate: a certificate's `expiresAt` is never after it.
   */
  leaseExpiresAt?: Timestamp | null;
  /** Floating plans: the end of the machine's borrow while one stands, else null (or absent). */
  borrowedUntil?: Timestamp | null;
  /** The `leaseExpiresAt` whose lapse was recorded (`lease.expired`), so each lapse is recorded once; absent: none yet. */
  lapseRecorded?: Timestamp | null;
  /**
   * Unix seconds: the earliest `issuedAt` of this activation's certificates, one second after the
   * machine's freeing still on the product's revocation list (its `freedAt`), so a certificate issued
   * in the freeing's own second is not blocked by it (docs/rvl1.md, "What the server signs", rule 6).
   * Absent (or null) when the machine had no standing entry at activation.
   */
  certificatesFrom?: number | null;
}
