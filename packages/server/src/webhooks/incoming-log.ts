import type { IncomingDeliveryEntry, IncomingRefusalReason, LicenseEngine } from '@svc-licensing/license-engine';
import { statusForCode } from '../http/errors.js';
import type { ReportError, WebhookRefusal } from './refusals.js';

/** The engine operation the incoming delivery log writes with. */
export type IncomingLogEngine = Pick<LicenseEngine, 'recordIncomingDeliveries'>;

/** One delivery to log: what it was answered (its time is the log's clock, its count 1). */
export type IncomingDelivery = Omit<IncomingDeliveryEntry, 'at' | 'count'>;

/** How long repeats of a group this process has logged are counted before they are written together. */
export const INCOMING_REPEATS_FLUSH_MS = 2000;

/** Groups remembered at most; past it, a delivery is written on its own (a bound on memory, never reached in practice). */
const MAX_GROUPS = 10_000;

const MINUTE_MS = 60_000;

interface Group {
  engine: IncomingLogEngine;
  delivery: IncomingDelivery;
  minute: number;
  /** Repeats since the group was last written, and the time of the last one. */
  pending: number;
  lastAt: number;
}

/**
 * The receiver's side of the incoming delivery log, at a bounded rate: a delivery whose group
 * (integration, minute, result, reason, verified event ID) this process has not logged yet is
 * written before `log` resolves; its repeats are only counted, and written as one increment of
 * the group's row at most every {@link INCOMING_REPEATS_FLUSH_MS}. A flood therefore costs each
 * group one write at its start and one every 2 seconds, whatever its size. Counts not yet written
 * when the process stops (at most 2 seconds of repeats) are lost, and a write that fails is reported.
 *
 * @example
 * ```ts
 * const incoming = new IncomingLog({ now: () => Date.now(), report: (error) => console.error(error) });
 * await incoming.log(engine, { integrationId, status: 401, result: 'refused', reason: 'signature_mismatch', message });
 * ```
 */
export class IncomingLog {
  readonly #groups = new Map<string, Group>();
  readonly #now: () => number;
  readonly #report: ReportError;
  readonly #flushMs: number;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(options: { now: () => number; report: ReportError; flushMs?: number }) {
    this.#now = options.now;
    this.#report = options.report;
    this.#flushMs = options.flushMs ?? INCOMING_REPEATS_FLUSH_MS;
  }

  /** Logs one delivery: written now when it starts a group, else counted for the next write of its group. */
  async log(engine: IncomingLogEngine, delivery: IncomingDelivery): Promise<void> {
    const at = this.#now();
    const minute = Math.floor(at / MINUTE_MS);
    const key = JSON.stringify([delivery.integrationId, minute, delivery.result, delivery.reason ?? null, delivery.eventId ?? null]);
    const group = this.#groups.get(key);
    if (group) {
      group.pending += 1;
      group.lastAt = at;
      group.engine = engine;
      this.#schedule();
      return;
    }
    if (this.#groups.size < MAX_GROUPS) this.#groups.set(key, { engine, delivery, minute, pending: 0, lastAt: at });
    await this.#write(engine, [{ ...delivery, at }]);
  }

  /** Writes the repeats counted so far, and forgets the groups of past minutes. */
  async flush(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const minute = Math.floor(this.#now() / MINUTE_MS);
    const batches = new Map<IncomingLogEngine, IncomingDeliveryEntry[]>();
    for (const [key, group] of this.#groups) {
      if (group.pending > 0) {
        const batch = batches.get(group.engine) ?? [];
        batch.push({ ...group.delivery, at: group.lastAt, count: group.pending });
        batches.set(group.engine, batch);
        group.pending = 0;
      }
      if (group.minute < minute) this.#groups.delete(key);
    }
    for (const [engine, entries] of batches) await this.#write(engine, entries);
  }

  #schedule(): void {
    if (this.#timer !== null) return;
    this.#timer = setTimeout(() => void this.flush(), this.#flushMs);
    this.#timer.unref?.();
  }

  async #write(engine: IncomingLogEngine, entries: IncomingDeliveryEntry[]): Promise<void> {
    try {
      await engine.recordIncomingDeliveries(entries);
    } catch (error) {
      this.#report(error, { integrationId: entries[0]?.integrationId ?? '', what: 'incoming delivery log' });
    }
  }
}

/** The log entry of a refused delivery: its status by the refusal's code, its reason, and the event only when verified. */
export function refusedDelivery(
  integrationId: string,
  refusal: WebhookRefusal,
  reason: IncomingRefusalReason,
  event: { eventType: string; eventId: string } | null = null,
): IncomingDelivery {
  return { integrationId, status: statusForCode(refusal.code), result: 'refused', reason, message: refusal.message, ...(event ?? {}) };
}

/** The reason of a verified event refused by the engine (`internal_error`: `error`). */
export function reasonOfRefusal(refusal: WebhookRefusal): IncomingRefusalReason {
  switch (refusal.code) {
    case 'key_email_in_progress':
    case 'conflict':
    case 'rate_limited':
    case 'customer_unknown':
      return refusal.code;
    default:
      return 'error';
  }
}

/** The log entry of a delivery whose body could not be read (over the size limit, or cut off). */
export function unreadBody(integrationId: string, error: unknown): IncomingDelivery {
  const status = typeof (error as { status?: unknown })?.status === 'number' ? (error as { status: number }).status : 400;
  const message = error instanceof Error ? error.message : 'The request body could not be read.';
  return { integrationId, status, result: 'refused', reason: status === 413 ? 'body_too_large' : 'unreadable_body', message };
}
