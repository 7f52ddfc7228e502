/**
 * How the client SDK times a floating lease (docs/floating-seats.md, "SDK"). A floating
 * certificate's `expiresAt` is `issuedAt` + the lease: minutes on the server's clock. Judged by this
 * machine's wall clock, a clock an hour fast would kill every fresh lease and a clock an hour slow
 * would stretch each one by an hour. So the SDK times the lease from the moment the certificate
 * arrived, and evaluates the certificate at `issuedAt` + the time gone by since then:
 *
 * - the time gone by is the larger of the time the SDK's **monotonic** clock counted since receipt
 *   (summed over runs and saved beside the certificate) and this machine's **wall** clock since
 *   receipt. Both are readings of this machine's own clocks, so a constant offset from the server
 *   cancels out; a wall clock frozen or set back cannot make the lease younger than the time the SDK
 *   ran, and a machine asleep (where a monotonic clock may stop) is caught by the wall clock;
 * - a certificate received more than a day after its own `expiresAt` by this machine's clock (a
 *   replayed old answer, or a clock more than a day fast) is timed by the wall clock, so it arrives
 *   expired;
 * - a new certificate with the same `issuedAt` as the held one keeps the held one's receipt, so
 *   replaying answers of one second to the SDK cannot restart a lease.
 *
 * Plain functions over the stored state, and one small class holding the monotonic anchor of the
 * current process (which cannot be stored: a monotonic clock starts again with each process).
 */
import type { CertificatePayload } from '@svc-licensing/cert-format';
import type { LicenseState, StoredLease } from './storage.js';

/** The `lease` object of a client API answer on a floating plan, its times as Unix seconds. */
export interface AnswerLease {
  leaseSeconds: number;
  leaseExpiresAt: number;
  borrowedUntil: number | null;
}

/** The lease of a `check()` answer: what the app shows and plans with. */
export interface LicenseLease {
  /** True on a floating plan: the seat is a lease that heartbeats renew. False on a machine plan. */
  floating: boolean;
  /**
   * When the certificate stops working offline, as an instant on this machine's clock (Unix ms,
   * `new Date(endsAt)` shows it). On a floating plan it is timed from the certificate's receipt, so it
   * is right relative to this machine's clock even when that clock is off; on a machine plan it is the
   * certificate's `expiresAt`.
   */
  endsAt: number;
  /** The end of this machine's borrow on this machine's clock (Unix ms), while it holds one; else null. */
  borrowedUntil: number | null;
  /** The plan's lease length in seconds when the lease was granted; null on a machine plan. */
  leaseSeconds: number | null;
}

/** A receipt this many seconds after the certificate's own `expiresAt`, by this machine's clock, is late. */
export const LATE_RECEIPT_SECONDS = 86_400;

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const unixSeconds = (value: unknown): number | null => {
  if (typeof value !== 'string' || !TIMESTAMP.test(value)) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms / 1000 : null;
};

/**
 * Reads the `lease` object of an answer (`{ leaseSeconds, leaseExpiresAt, borrowedUntil }`); null when
 * absent (a machine plan) or not of that shape, and the certificate is then timed by the wall clock,
 * as an SDK that knows nothing of leases would.
 */
export function parseAnswerLease(value: unknown): AnswerLease | null {
  if (typeof value !== 'object' || value === null) return null;
  const { leaseSeconds, leaseExpiresAt, borrowedUntil } = value as Record<string, unknown>;
  const end = unixSeconds(leaseExpiresAt);
  const borrow = borrowedUntil === null ? null : unixSeconds(borrowedUntil);
  if (!Number.isSafeInteger(leaseSeconds) || (leaseSeconds as number) <= 0 || end === null) return null;
  if (borrowedUntil !== null && borrow === null) return null;
  return { leaseSeconds: leaseSeconds as number, leaseExpiresAt: end, borrowedUntil: borrow };
}

/**
 * The lease to store with a certificate that just arrived with `lease`: timed from now (`ranMs` 0,
 * `receivedAt` the wall clock), unless the held lease has the same `issuedAt` (its receipt is kept,
 * with `heldRanMs` run so far) or the receipt is late (timed from `issuedAt` by the wall clock).
 */
export function receiveLease(
  held: StoredLease | null,
  heldRanMs: number,
  lease: AnswerLease,
  payload: Pick<CertificatePayload, 'issuedAt' | 'expiresAt'>,
  wallNowMs: number,
): StoredLease {
  const { issuedAt } = payload;
  if (held !== null && held.issuedAt === issuedAt) return { ...lease, issuedAt, receivedAt: held.receivedAt, ranMs: heldRanMs };
  const late = wallNowMs >= (payload.expiresAt + LATE_RECEIPT_SECONDS) * 1000;
  return { ...lease, issuedAt, receivedAt: late ? issuedAt * 1000 : wallNowMs, ranMs: 0 };
}

/** Milliseconds of the lease gone by: the larger of the time the SDK ran since receipt and the wall clock's time since receipt. */
export function leaseElapsedMs(lease: StoredLease, ranMs: number, wallNowMs: number): number {
  return Math.max(ranMs, wallNowMs - lease.receivedAt, 0);
}

/** The instant (Unix seconds, the server's timeline) a certificate with this lease is evaluated at: `issuedAt` + the time gone by. */
export function leaseNowSeconds(lease: StoredLease, elapsedMs: number): number {
  return lease.issuedAt + Math.floor(elapsedMs / 1000);
}

/** The lease a `check()` answer reports for a certificate's payload; `lease` null on a machine plan. */
export function leaseReport(payload: CertificatePayload, lease: StoredLease | null, elapsedMs: number, wallNowMs: number): LicenseLease {
  if (lease === null) return { floating: false, endsAt: payload.expiresAt * 1000, borrowedUntil: null, leaseSeconds: null };
  // The server's "now" for this lease, then each server instant moved onto this machine's clock.
  const serverNowMs = lease.issuedAt * 1000 + elapsedMs;
  const local = (serverSeconds: number) => wallNowMs + (serverSeconds * 1000 - serverNowMs);
  const borrowing = lease.borrowedUntil !== null && lease.borrowedUntil * 1000 > serverNowMs;
  return { floating: true, endsAt: local(payload.expiresAt), borrowedUntil: borrowing ? local(lease.borrowedUntil!) : null, leaseSeconds: lease.leaseSeconds };
}

/** True while the stored lease holds a borrow that has not ended (at `elapsedMs` since receipt). */
export function isBorrowing(lease: StoredLease | null, elapsedMs: number): boolean {
  return lease !== null && lease.borrowedUntil !== null && lease.borrowedUntil * 1000 > lease.issuedAt * 1000 + elapsedMs;
}

/** Save the run time again once it grew by this much since it was last saved. */
export const RAN_SAVE_STEP_MS = 10_000;

/**
 * The monotonic anchor of the current process: how long the SDK has run since the held certificate
 * arrived. A certificate this process did not receive (an earlier run, another tab) is anchored at
 * its saved `ranMs` the first time it is seen.
 */
export class LeaseTiming {
  readonly #monotonicNow: () => number;
  #anchor: { certificate: string; monoAt: number; ranAt: number } | null = null;

  constructor(monotonicNow: () => number) {
    this.#monotonicNow = monotonicNow;
  }

  /** Milliseconds the SDK has run since the state's certificate arrived (0 without a lease). */
  ranMs(state: LicenseState): number {
    if (state.lease === null || state.certificate === null) return 0;
    const mono = this.#monotonicNow();
    const anchor = this.#anchor;
    if (anchor === null || anchor.certificate !== state.certificate || mono < anchor.monoAt) {
      this.#anchor = { certificate: state.certificate, monoAt: mono, ranAt: state.lease.ranMs };
      return state.lease.ranMs;
    }
    // Another process holding the same certificate may have saved more run time than this one counted.
    return Math.max(anchor.ranAt + (mono - anchor.monoAt), state.lease.ranMs);
  }

  /** Anchors a certificate just stored, which has run `ranMs` already (0 for a new receipt). */
  anchor(certificate: string, ranMs: number): void {
    this.#anchor = { certificate, monoAt: this.#monotonicNow(), ranAt: ranMs };
  }
}
