import type { IncomingDeliveryRecord, IncomingDeliveryResult, IncomingRefusalReason } from './incoming-records.js';
import type { IntegrationRecord, Timestamp } from './records.js';
import type { EngineContext } from './context.js';
import { sha256Hex } from './hash.js';
import { toTimestamp } from './time.js';

/** The incoming delivery log's rows and views (issue 28): grouping, building, showing. */

/** The deliveries a log row stands for: what they were answered and how many came. */
export interface IncomingDeliveryEntry {
  integrationId: string;
  /** The HTTP status they were answered with. */
  status: number;
  result: IncomingDeliveryResult;
  /** Why they were refused; null (or absent) when taken. */
  reason?: IncomingRefusalReason | null;
  /** The answer's message, or the result's detail (at most 1000 characters are kept). */
  message: string;
  /** Only for a delivery whose signature was verified: the provider's event type and ID. */
  eventType?: string | null;
  eventId?: string | null;
  /** When they came (epoch ms; the engine's clock when absent): its minute groups them. */
  at?: number;
  /** How many came (default 1). */
  count?: number;
}

/** An incoming delivery as `GET /integrations/{id}/deliveries` lists it: one row per group of alike deliveries in a minute. */
export interface IncomingDeliveryView {
  id: string;
  integration: string;
  /** `processed`, `duplicate` or `ignored` (answered 200), or `refused`. */
  result: IncomingDeliveryResult;
  /** The HTTP status the deliveries were answered with. */
  status: number;
  /** Why they were refused (`signature_mismatch`, `timestamp_out_of_range`, ...); null when taken. */
  reason: IncomingRefusalReason | null;
  /** What the answer said. */
  message: string;
  /** The provider's event type and ID, from a delivery whose signature was verified; null otherwise. */
  eventType: string | null;
  eventId: string | null;
  /** How many deliveries this row stands for (repeats within its minute). */
  count: number;
  firstAt: Timestamp;
  lastAt: Timestamp;
}

const MINUTE_MS = 60_000;

/** The group of a delivery: its integration, minute, result, reason and (verified deliveries only) event ID. */
export function incomingGroupKey(entry: Pick<IncomingDeliveryEntry, 'integrationId' | 'result' | 'reason' | 'eventId'>, at: number): string {
  const minute = Math.floor(at / MINUTE_MS);
  return sha256Hex(JSON.stringify([entry.integrationId, minute, entry.result, entry.reason ?? null, entry.eventId ?? null])).slice(0, 40);
}

/** A new row of the log for `entry`, in `integration`'s account. */
export function incomingRow(ctx: EngineContext, integration: Pick<IntegrationRecord, 'id' | 'accountId' | 'provider'>, entry: IncomingDeliveryEntry): IncomingDeliveryRecord {
  const at = entry.at ?? ctx.clock.now();
  const when = toTimestamp(at);
  return {
    id: ctx.ids.next('rcv'),
    accountId: integration.accountId,
    integrationId: integration.id,
    groupKey: incomingGroupKey({ ...entry, integrationId: integration.id }, at),
    provider: integration.provider,
    status: entry.status,
    result: entry.result,
    reason: entry.reason ?? null,
    message: entry.message.slice(0, 1000),
    eventType: entry.eventType?.slice(0, 200) ?? null,
    eventId: entry.eventId?.slice(0, 200) ?? null,
    count: entry.count ?? 1,
    firstAt: when,
    lastAt: when,
  };
}

/** `row` with `more` deliveries added, the last of them at `at`. */
export function withRepeats(row: IncomingDeliveryRecord, more: IncomingDeliveryRecord): IncomingDeliveryRecord {
  return {
    ...row,
    count: row.count + more.count,
    firstAt: more.firstAt < row.firstAt ? more.firstAt : row.firstAt,
    lastAt: more.lastAt > row.lastAt ? more.lastAt : row.lastAt,
  };
}

export function incomingDeliveryView(r: IncomingDeliveryRecord): IncomingDeliveryView {
  return {
    id: r.id,
    integration: r.integrationId,
    result: r.result,
    status: r.status,
    reason: r.reason,
    message: r.message,
    eventType: r.eventType,
    eventId: r.eventId,
    count: r.count,
    firstAt: r.firstAt,
    lastAt: r.lastAt,
  };
}
