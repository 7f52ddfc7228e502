import { startRepeating, type RepeatingJob } from './repeating-job.js';
import type { LicenseEngine, SweepResult } from '@svc-licensing/license-engine';

/** Options of {@link startLeaseSweeper}. */
export interface LeaseSweeperOptions {
  engine: Pick<LicenseEngine, 'sweepLapsedLeases'>;
  /** Time between the end of one sweep and the start of the next. */
  intervalMs: number;
  /** Told about every sweep that recorded a lapse. */
  onSwept?: (result: SweepResult) => void;
  /** Told about a sweep that failed (the next one tries again). */
  onError?: (error: unknown) => void;
}

/**
 * Runs `engine.sweepLapsedLeases` (records `lease.expired` for floating leases that lapsed on
 * licenses nobody calls) at once and then `intervalMs` after each sweep ends, until `stop()`, which
 * waits for a sweep in progress. Sweeps of one instance never overlap; several instances may sweep
 * at once (each lapse is still recorded once). Counts and seats never depend on it.
 *
 * @example
 * ```ts
 * const sweeper = startLeaseSweeper({ engine, intervalMs: 300_000 });
 * // at shutdown
 * await sweeper.stop();
 * ```
 */
export function startLeaseSweeper(options: LeaseSweeperOptions): RepeatingJob {
  const sweep = () =>
    options.engine.sweepLapsedLeases().then(
      (result) => {
        if (result.recorded > 0) options.onSwept?.(result);
      },
      (error: unknown) => options.onError?.(error),
    );
  return startRepeating(sweep, options.intervalMs);
}
