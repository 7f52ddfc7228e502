import { startRepeating, type RepeatingJob } from './repeating-job.js';
import type { LicenseEngine, PurgeResult, Store } from '@svc-licensing/license-engine';

/** Options of {@link startPurgeJob}. */
export interface PurgeJobOptions {
  engine: Pick<LicenseEngine, 'purgeClosedAccounts'> & Partial<Pick<LicenseEngine, 'purgeOldDeliveries' | 'purgeOldIncomingDeliveries'>>;
  /** The store under the engine: an embedded store is checkpointed after a purge, so its files keep nothing of the account. */
  store: Store & { checkpoint?: () => Promise<void> };
  /** Time between runs; one day by default. The first run starts at once. */
  intervalMs?: number;
  /** Told about every run that purged something. */
  onPurged?: (result: PurgeResult) => void;
  /** Told about a run that failed (the next run tries again). */
  onError?: (error: unknown) => void;
}

/**
 * Deletes the accounts closed more than 30 days ago (`engine.purgeClosedAccounts`), then, on the
 * embedded store, writes a checkpoint so no journal segment still holds their records.
 *
 * @example
 * ```ts
 * const { purged } = await purgeNow({ engine, store }); // what `svc purge` does
 * ```
 */
export async function purgeNow(options: Pick<PurgeJobOptions, 'engine' | 'store'>): Promise<PurgeResult> {
  const result = await options.engine.purgeClosedAccounts();
  // Notification deliveries and the incoming delivery log are kept 30 days, like everything of a closed account.
  await options.engine.purgeOldDeliveries?.();
  await options.engine.purgeOldIncomingDeliveries?.();
  if (result.purged.length > 0 && typeof options.store.checkpoint === 'function') await options.store.checkpoint();
  return result;
}

/**
 * Runs {@link purgeNow} at once and then every `intervalMs` (a day) until `stop()`; `stop()`
 * waits for a run in progress. Runs never overlap, and a purge is idempotent, so several server
 * instances running it at once only repeat each other's deletes.
 *
 * @example
 * ```ts
 * const job = startPurgeJob({ engine, store, onPurged: (r) => console.log(r.purged) });
 * // at shutdown
 * await job.stop();
 * ```
 */
export function startPurgeJob(options: PurgeJobOptions): RepeatingJob {
  const purge = () =>
    purgeNow(options).then(
      (result) => {
        if (result.purged.length > 0) options.onPurged?.(result);
      },
      (error: unknown) => options.onError?.(error),
    );
  return startRepeating(purge, options.intervalMs ?? 86_400_000);
}
