import type { NotificationEventType } from './audit-records.js';
import type { EncryptedSecret } from './ports.js';
import type { Timestamp } from './timestamp.js';

/**
 * The records of outgoing notifications (issue 28): the vendor's webhook endpoints and the
 * notification deliveries written with each audited change (a transactional outbox). Times the
 * dispatcher computes with are epoch milliseconds (`number`), not `Timestamp`s.
 */

/**
 * Why the server disabled an endpoint: `410 Gone`, 3 days of failures, or a stored signing secret
 * that no longer opens (a damaged record, another installation's master key): rotate it, then enable.
 */
export type EndpointDisabledReason = 'gone' | 'failing' | 'secret_unreadable';

/** A vendor's endpoint that receives signed notifications. */
export interface WebhookEndpointRecord {
  id: string; // wep_
  accountId: string;
  url: string;
  description: string;
  /** The event types it receives; empty: every type. */
  events: NotificationEventType[];
  enabled: boolean;
  /** Set when the server disabled it; null when enabled, or disabled by the vendor. */
  disabledReason: EndpointDisabledReason | null;
  /** The signing secret (`whsec_...`), sealed. */
  secret: EncryptedSecret;
  /** The secret before the last rotation, sealed, and when it stops signing (epoch ms). */
  previousSecret: { secret: EncryptedSecret; expiresAt: number } | null;
  /** The last successful attempt (epoch ms, to within a minute); null before any. */
  lastSuccessAt: number | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** An enabled endpoint as the account lists it for the audit hook (see `AccountRecord.webhookSubscriptions`). */
export interface WebhookSubscription {
  endpoint: string;
  /** Empty: every type. */
  events: NotificationEventType[];
}

/** What the delivery log keeps of one attempt (never a secret or the request body). */
export interface DeliveryAttemptRecord {
  /** When the attempt started (epoch ms). */
  at: number;
  ok: boolean;
  status: number | null;
  latencyMs: number;
  errorCode: string | null;
  errorMessage: string | null;
  /** At most the first 4 KiB of the answer. */
  responseBody: string;
}

/** Where a delivery stands. */
export type DeliveryState = 'pending' | 'delivered' | 'failed';

/** One notification to one endpoint; its `id` is the `webhook-id` of every attempt. */
export interface NotificationDeliveryRecord {
  id: string; // msg_
  accountId: string;
  endpointId: string;
  /** The audit event it tells about; null for a test notification. */
  eventId: string | null;
  /** The event type (`license.created`, ..., or `webhook_endpoint.test`). */
  type: string;
  /** The exact body, fixed when queued: every attempt sends (and signs) these bytes. */
  body: string;
  state: DeliveryState;
  /**
   * When a dispatcher may claim it (epoch ms): the next attempt, or while claimed the end of the
   * claim's lease; null once delivered or failed, and while its endpoint is disabled (parked).
   */
  dueAt: number | null;
  /** The next attempt as scheduled (epoch ms), for the log; null when none is. */
  nextAttemptAt: number | null;
  /** Attempts since it was queued or last resent: the retry schedule counts these. */
  roundAttempts: number;
  /** The first attempt since it was queued or last resent (epoch ms); null before it. */
  firstAttemptAt: number | null;
  /** Every attempt, oldest first (the latest `MAX_KEPT_ATTEMPTS`). */
  attempts: DeliveryAttemptRecord[];
  /** The claim of the attempt in flight; a record under another token writes nothing. */
  claim: { token: string; until: number } | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}
