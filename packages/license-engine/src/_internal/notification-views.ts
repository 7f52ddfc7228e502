import type { NotificationEventType, DeliveryState, EndpointDisabledReason, NotificationDeliveryRecord, Timestamp, WebhookEndpointRecord } from './records.js';
import { toTimestamp } from './time.js';

/** The API views of webhook endpoints and their delivery log (issue 28). */

/** A webhook endpoint (never its secret, which only creation and rotation show). */
export interface WebhookEndpointView {
  id: string;
  url: string;
  description: string;
  /** The event types it receives; empty: every type. */
  events: NotificationEventType[];
  enabled: boolean;
  /** Why the server disabled it (`gone`: it answered 410; `failing`: 3 days of failures); null otherwise. */
  disabledReason: EndpointDisabledReason | null;
  /** Until when the previous secret still signs beside the current one after a rotation; null when it no longer does. */
  previousSecretExpiresAt: Timestamp | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** The answer of creation and of `rotate-secret`: the endpoint and its signing secret, shown this once. */
export interface WebhookEndpointSecretView extends WebhookEndpointView {
  secret: string;
}

/** One attempt of a delivery, as the log shows it. */
export interface DeliveryAttemptView {
  at: string;
  /** The HTTP status of the answer; null when none came (timeout, refused address, network). */
  status: number | null;
  latencyMs: number;
  ok: boolean;
  /** Why it failed (`http_status`, `timeout`, `refused`, ...), null on success. */
  error: string | null;
  message: string | null;
  /** At most the first 4 KiB of the answer. */
  response: string;
}

/** A notification to one endpoint with its attempts. */
export interface NotificationDeliveryView {
  /** The `webhook-id` of every attempt. */
  id: string;
  endpoint: string;
  type: string;
  /** The audit event it tells about; null for a test notification. */
  event: string | null;
  status: DeliveryState;
  attempts: DeliveryAttemptView[];
  /** When the next attempt is due; null when none is (delivered, given up, or its endpoint is disabled). */
  nextAttemptAt: string | null;
  createdAt: Timestamp;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function webhookEndpointView(e: WebhookEndpointRecord, now: number): WebhookEndpointView {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    events: [...e.events],
    enabled: e.enabled,
    disabledReason: e.disabledReason,
    previousSecretExpiresAt: e.previousSecret !== null && e.previousSecret.expiresAt > now ? toTimestamp(e.previousSecret.expiresAt) : null,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  };
}

export function notificationDeliveryView(d: NotificationDeliveryRecord): NotificationDeliveryView {
  return {
    id: d.id,
    endpoint: d.endpointId,
    type: d.type,
    event: d.eventId,
    status: d.state,
    attempts: d.attempts.map((a) => ({
      at: iso(a.at), status: a.status, latencyMs: a.latencyMs, ok: a.ok, error: a.errorCode, message: a.errorMessage, response: a.responseBody,
    })),
    nextAttemptAt: d.state === 'pending' && d.dueAt !== null && d.nextAttemptAt !== null ? iso(d.nextAttemptAt) : null,
    createdAt: d.createdAt,
  };
}
