/**
 * When a failed notification is tried again: about 5 s, 5 min, 30 min, 2 h, 5 h and 10 h after each
 * failure, then every 10 hours, until 3 days have passed since the first attempt; the last attempt
 * is made at the 3-day mark. Each delay is jittered by ±10% so deliveries that failed together
 * (an endpoint that was down) do not all come back at once.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The delays after the 1st, 2nd, ... failed attempt; the last one repeats. */
export const RETRY_DELAYS_MS: readonly number[] = Object.freeze([5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR]);

/** How long after its first attempt a notification is given up: 3 days. */
export const RETRY_WINDOW_MS = 3 * 24 * HOUR;

/** Each delay is multiplied by a factor in [1 - JITTER, 1 + JITTER). */
export const RETRY_JITTER = 0.1;

/** Where a notification stands after a failed attempt. */
export interface FailedAttempts {
  /** Attempts made so far, the failed one included (1 after the first). */
  attempts: number;
  /** When the first attempt was made (epoch ms). */
  firstAttemptAt: number;
  /** When the failed attempt ended (epoch ms): the delay counts from here. */
  now: number;
}

/**
 * When to try again after a failure, or null when the 3 days are over (the caller then gives the
 * notification up, and disables an endpoint that failed throughout). Pure: the time comes in
 * `now`, the randomness from `random` (`Math.random` by default; values in [0, 1)).
 *
 * @example
 * ```ts
 * nextAttemptAt({ attempts: 1, firstAttemptAt: t0, now: t0 + 200 }, () => 0.5); // t0 + 200 + 5000
 * nextAttemptAt({ attempts: 12, firstAttemptAt: t0, now: t0 + 72 * 3_600_000 }); // null
 * ```
 */
export function nextAttemptAt(failed: FailedAttempts, random: () => number = Math.random): number | null {
  if (!Number.isInteger(failed.attempts) || failed.attempts < 1) throw new RangeError(`expected at least one attempt, got ${failed.attempts}`);
  const deadline = failed.firstAttemptAt + RETRY_WINDOW_MS;
  if (failed.now >= deadline) return null;
  const base = RETRY_DELAYS_MS[Math.min(failed.attempts, RETRY_DELAYS_MS.length) - 1] as number;
  const factor = 1 - RETRY_JITTER + 2 * RETRY_JITTER * Math.min(Math.max(random(), 0), 1);
  return Math.min(failed.now + Math.round(base * factor), deadline);
}
