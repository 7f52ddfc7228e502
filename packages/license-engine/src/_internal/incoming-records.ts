import type { ProviderName } from './provider-name.js';
import type { Timestamp } from './timestamp.js';

/**
 * The log of incoming payment-provider deliveries (issue 28): every delivery to an integration,
 * refused ones included, grouped so that a flood adds a count, not rows. Kept 30 days.
 */

/** What became of a delivery: taken (`processed`, `duplicate`, `ignored`) or `refused` (not 2xx). */
export type IncomingDeliveryResult = 'processed' | 'duplicate' | 'ignored' | 'refused';

/**
 * Why a delivery was refused. The signature checks (`missing_secret`, `missing_header`,
 * `malformed_header`, `timestamp_out_of_range`, `signature_mismatch`: 401), the body
 * (`body_too_large`: 413, `unreadable_body`: 400 or 500 for a signed body that cannot be read), and
 * a verified event that could not apply (`key_email_in_progress`, `conflict`: 409, `rate_limited`:
 * 429, `customer_unknown`, `error`: 500).
 */
export type IncomingRefusalReason =
  | 'missing_secret'
  | 'missing_header'
  | 'malformed_header'
  | 'timestamp_out_of_range'
  | 'signature_mismatch'
  | 'body_too_large'
  | 'unreadable_body'
  | 'key_email_in_progress'
  | 'conflict'
  | 'rate_limited'
  | 'customer_unknown'
  | 'error';

/**
 * One row of the log: the deliveries to one integration within one minute that were answered
 * alike (same result, reason and, for a verified delivery, event), with how many there were.
 */
export interface IncomingDeliveryRecord {
  id: string; // rcv_
  accountId: string;
  integrationId: string;
  /** Hex digest of integration, minute, result, reason and event ID: unique, so repeats add to `count`. */
  groupKey: string;
  provider: ProviderName;
  /** The HTTP status the deliveries were answered with. */
  status: number;
  result: IncomingDeliveryResult;
  /** Why they were refused; null when taken. */
  reason: IncomingRefusalReason | null;
  /** What the answer said (the refusal's message, or the result's detail). */
  message: string;
  /** The provider's event type and ID, only from a delivery whose signature was verified; null otherwise. */
  eventType: string | null;
  eventId: string | null;
  count: number;
  /** The first and the last delivery of the group (both within its minute). */
  firstAt: Timestamp;
  lastAt: Timestamp;
}
