import type { PlanRecord, SeatMode } from './records.js';
import { invalid, requireInt } from './validate.js';

/**
 * Lease defaults and bounds of floating plans (docs/floating-seats.md, "Plans").
 *
 * @example
 * ```ts
 * FLOATING_DEFAULTS.leaseSeconds; // 900
 * ```
 */
export const FLOATING_DEFAULTS = { leaseSeconds: 900, maxBorrowDays: 0, maxBorrowedSeats: null } as const;

/** `leaseSeconds` bounds of a floating plan. */
export const LEASE_SECONDS_RANGE = { min: 120, max: 86_400 } as const;

const SEAT_MODES: readonly SeatMode[] = ['machine', 'floating'];
const LEASE_FIELDS = ['leaseSeconds', 'maxBorrowDays', 'maxBorrowedSeats'] as const;

/** The seat fields of a plan, as the plan's answers show them (the lease fields null on a machine plan). */
export interface PlanSeats {
  seatMode: SeatMode;
  leaseSeconds: number | null;
  maxBorrowDays: number | null;
  maxBorrowedSeats: number | null;
}

/** A plan's seat mode; plans written before floating seats are `machine`. */
export function seatModeOf(plan: PlanRecord): SeatMode {
  return plan.seatMode ?? 'machine';
}

/** True for a floating plan. */
export function isFloating(plan: PlanRecord): boolean {
  return seatModeOf(plan) === 'floating';
}

/** The seat fields of a stored plan, defaults filled in. */
export function planSeatsOf(plan: PlanRecord): PlanSeats {
  if (!isFloating(plan)) return { seatMode: 'machine', leaseSeconds: null, maxBorrowDays: null, maxBorrowedSeats: null };
  return {
    seatMode: 'floating',
    leaseSeconds: plan.leaseSeconds ?? FLOATING_DEFAULTS.leaseSeconds,
    maxBorrowDays: plan.maxBorrowDays ?? FLOATING_DEFAULTS.maxBorrowDays,
    maxBorrowedSeats: plan.maxBorrowedSeats ?? null,
  };
}

/** The lease length of a floating plan in seconds. */
export function leaseSecondsOf(plan: PlanRecord): number {
  return plan.leaseSeconds ?? FLOATING_DEFAULTS.leaseSeconds;
}

/** Checks the lease fields present in `body` (any of them on a machine plan is `invalid_request`). */
function parseLeaseFields(body: Record<string, unknown>, mode: SeatMode): Partial<PlanSeats> {
  const present = LEASE_FIELDS.filter((f) => body[f] !== undefined);
  if (mode === 'machine') {
    if (present.length > 0) invalid(`${present.join(', ')} apply to floating plans only (seatMode floating)`);
    return {};
  }
  const out: Partial<PlanSeats> = {};
  if (body.leaseSeconds !== undefined) {
    out.leaseSeconds = requireInt(body.leaseSeconds, 'leaseSeconds', LEASE_SECONDS_RANGE.min, LEASE_SECONDS_RANGE.max);
  }
  if (body.maxBorrowDays !== undefined) out.maxBorrowDays = requireInt(body.maxBorrowDays, 'maxBorrowDays', 0, 365);
  if (body.maxBorrowedSeats !== undefined) {
    out.maxBorrowedSeats = body.maxBorrowedSeats === null ? null : requireInt(body.maxBorrowedSeats, 'maxBorrowedSeats', 0, 100_000);
  }
  return out;
}

/** The seat fields of a new plan from its create body: `seatMode` (default `machine`) and, on a floating plan, the lease fields with their defaults. */
export function parseNewPlanSeats(body: Record<string, unknown>): PlanSeats {
  if (body.seatMode !== undefined && !SEAT_MODES.includes(body.seatMode as SeatMode)) invalid('seatMode must be machine or floating');
  const mode = (body.seatMode as SeatMode | undefined) ?? 'machine';
  const fields = parseLeaseFields(body, mode);
  if (mode === 'machine') return { seatMode: 'machine', leaseSeconds: null, maxBorrowDays: null, maxBorrowedSeats: null };
  return {
    seatMode: 'floating',
    leaseSeconds: fields.leaseSeconds ?? FLOATING_DEFAULTS.leaseSeconds,
    maxBorrowDays: fields.maxBorrowDays ?? FLOATING_DEFAULTS.maxBorrowDays,
    maxBorrowedSeats: fields.maxBorrowedSeats ?? FLOATING_DEFAULTS.maxBorrowedSeats,
  };
}

/** The seat fields a `PATCH` changes on `plan` (`seatMode` is immutable; lease fields on a machine plan are refused). */
export function parsePlanSeatsPatch(body: Record<string, unknown>, plan: PlanRecord): Partial<PlanRecord> {
  if (body.seatMode !== undefined) invalid('seatMode of a plan cannot change');
  return parseLeaseFields(body, seatModeOf(plan));
}
