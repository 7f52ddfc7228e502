import type { ActivationRecord, Timestamp } from './records.js';
import { timestampMs } from './time.js';

/**
 * Floating leases as the server times them (docs/floating-seats.md, "Leases"): pure rules, no I/O.
 */

/** A lease stays live this long after its `leaseExpiresAt` (requests in flight, clocks of servers within 5 s). */
export const LEASE_GRACE_MS = 5_000;
/** Lapsed rows are removed by the next check-out on their license this many days after their lease ended. */
export const LAPSED_RETENTION_DAYS = 30;

/** How a machine holds its floating seat at an instant; null on a machine plan. */
export type LeaseState = 'live' | 'borrowed' | 'lapsed';

/** True while the activation's lease is live at `nowMs` (now < leaseExpiresAt + 5 s). */
export function isLive(activation: ActivationRecord, nowMs: number): boolean {
  const end = activation.leaseExpiresAt ?? null;
  return end !== null && nowMs < timestampMs(end) + LEASE_GRACE_MS;
}

/** The borrow in force at `nowMs` (its end), else null: a borrow stands while now < borrowedUntil and the lease is live. */
export function borrowOf(activation: ActivationRecord, nowMs: number): Timestamp | null {
  const until = activation.borrowedUntil ?? null;
  return until !== null && nowMs < timestampMs(until) && isLive(activation, nowMs) ? until : null;
}

/** The activation's lease state at `nowMs`; null for an activation without a lease (a machine plan's). */
export function leaseStateOf(activation: ActivationRecord, nowMs: number): LeaseState | null {
  if ((activation.leaseExpiresAt ?? null) === null) return null;
  if (borrowOf(activation, nowMs) !== null) return 'borrowed';
  return isLive(activation, nowMs) ? 'live' : 'lapsed';
}

/** True for a lapsed row older than the retention: the next check-out on its license removes it. */
export function isExpiredRow(activation: ActivationRecord, nowMs: number): boolean {
  const end = activation.leaseExpiresAt ?? null;
  return end !== null && nowMs >= timestampMs(end) + LAPSED_RETENTION_DAYS * 86_400_000;
}

/** True when the row's lapse is due to be recorded (`lease.expired`): lapsed, and this lease end not yet recorded. */
export function lapseUnrecorded(activation: ActivationRecord, nowMs: number): boolean {
  const end = activation.leaseExpiresAt ?? null;
  return end !== null && !isLive(activation, nowMs) && activation.lapseRecorded !== end;
}

/** Live and borrowed leases among `activations` at `nowMs` (the seat counts of a floating license). */
export function leaseCounts(activations: readonly ActivationRecord[], nowMs: number): { live: number; borrowed: number } {
  let live = 0;
  let borrowed = 0;
  for (const a of activations) {
    if (!isLive(a, nowMs)) continue;
    live++;
    if (borrowOf(a, nowMs) !== null) borrowed++;
  }
  return { live, borrowed };
}
