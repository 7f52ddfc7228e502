/** A job started by {@link startRepeating}. */
export interface RepeatingJob {
  /** Stops the job: no run starts after it; resolves once a run in progress has ended. */
  stop(): Promise<void>;
  /** The run in progress, or the last one (resolved). */
  running(): Promise<void>;
}

/**
 * Runs `run` at once and again `intervalMs` after each run ends, until `stop()`. Runs never
 * overlap. `run` reports its own outcome; a rejection is dropped, so a failed run never stops the job.
 *
 * @example
 * ```ts
 * const job = startRepeating(() => engine.sweepLapsedLeases().then(report, warn), 300_000);
 * await job.stop(); // at shutdown
 * ```
 */
export function startRepeating(run: () => Promise<void>, intervalMs: number): RepeatingJob {
  let current: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  const next = () => {
    current = run().catch(() => undefined);
    void current.then(() => {
      if (!stopped) {
        timer = setTimeout(next, intervalMs);
        timer.unref?.();
      }
    });
  };
  next();
  return {
    running: () => current,
    async stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      await current;
    },
  };
}
