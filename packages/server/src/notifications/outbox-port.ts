import type { EndpointDisabledReason } from '@svc-licensing/license-engine';
import type { AttemptErrorCode } from './attempt-result.js';

/**
 * The dispatcher's port to the notification outbox: claim the deliveries that are due, record what
 * an attempt gave. The store-backed outbox (written in the same unit of work as each change)
 * implements it; `createMemoryOutbox` is its reference implementation, and every implementation
 * passes the same conformance suite (test/notifications/outbox-port-conformance.ts).
 */

/** A delivery claimed for one attempt. */
export interface ClaimedDelivery {
  /** The delivery's id, sent as `webhook-id` on every attempt. */
  id: string;
  endpointId: string;
  /** The endpoint's URL at claim time. */
  url: string;
  /** The secrets that sign this attempt (current first; the previous one during a rotation overlap). */
  signingSecrets: readonly string[];
  /** The exact body, fixed when the delivery was queued. */
  body: string;
  /** Attempts made before this one. */
  attempts: number;
  /** When the first attempt was made (epoch ms); null before it. */
  firstAttemptAt: number | null;
  /** Proves this claim when recording: a claim that expired and was taken by another is refused. */
  claimToken: string;
}

/** What the delivery log keeps of one attempt (never the secrets or the request body). */
export interface AttemptRecord {
  /** When the attempt started (epoch ms). */
  at: number;
  ok: boolean;
  status: number | null;
  latencyMs: number;
  errorCode: AttemptErrorCode | null;
  errorMessage: string | null;
  /** At most the first 4 KiB of the answer. */
  responseBody: string;
}

/**
 * What becomes of the delivery after the attempt:
 * - `delivered`: done (the endpoint's last success is the attempt's time);
 * - `retry`: due again at `at`;
 * - `gone`: given up, and the endpoint disabled (`410 Gone`);
 * - `exhausted`: given up after the retry window; the endpoint is disabled when it has had no
 *   success since this delivery's first attempt (it failed throughout).
 */
export type DeliveryOutcome = { kind: 'delivered' } | { kind: 'retry'; at: number } | { kind: 'gone' } | { kind: 'exhausted' };

/** Why the server disabled an endpoint: the engine's list (`secret_unreadable`: its stored signing secret does not open). */
export type { EndpointDisabledReason } from '@svc-licensing/license-engine';

/** One finished attempt to record: the delivery, the claim it was made under, what it gave, what follows. */
export interface AttemptToRecord {
  deliveryId: string;
  claimToken: string;
  attempt: AttemptRecord;
  outcome: DeliveryOutcome;
}

/** The answer to {@link OutboxPort.recordAttempts}, for one attempt. */
export interface RecordedAttempt {
  /** False when the claim had expired and another claim holds the delivery: nothing was written. */
  recorded: boolean;
  /** Set when this record disabled the endpoint (the caller tells its owner). */
  endpointDisabled: EndpointDisabledReason | null;
}

/** The dispatcher's port. */
export interface OutboxPort {
  /**
   * Claims up to `limit` deliveries due at `now` (never one already claimed by a claim that has not
   * expired, never one of a disabled endpoint), each for `leaseMs`: until then no other claim gets
   * it. Concurrent calls, from any number of processes, never return the same delivery; after a
   * crash, the delivery is claimable again once the lease has expired (at-least-once). A delivery
   * that cannot be signed (the endpoint's stored secret does not open) is not returned: its endpoint
   * is disabled, reported through `onEndpointDisabled` after the claim, and the rest are claimed.
   */
  claimDue(input: {
    now: number;
    limit: number;
    leaseMs: number;
    onEndpointDisabled?: (event: { endpointId: string; reason: EndpointDisabledReason }) => void;
  }): Promise<ClaimedDelivery[]>;
  /**
   * Records finished attempts and their deliveries' outcomes, all in one unit of work (the
   * dispatcher records its attempts in batches: one commit for many). Each is recorded only if its
   * `claimToken` is still the delivery's claim, which it ends; one whose claim was taken over
   * records nothing, the others still do. Answers are in the order of `attempts`.
   */
  recordAttempts(attempts: readonly AttemptToRecord[]): Promise<RecordedAttempt[]>;
}
