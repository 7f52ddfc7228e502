/**
 * When the client SDK's heartbeat (`heartbeat: true`) calls validate: pure delay rules, and a
 * one-timer scheduler whose timers never keep a Node process alive.
 */

/** The share of the refresh interval the heartbeat is spread over before `refreshAfter`. */
export const HEARTBEAT_JITTER = 0.1;

/** The shortest wait before a retry after a failed heartbeat. */
export const MIN_RETRY_MS = 5_000;

/** The longest single timer: `setTimeout` fires at once above 2^31 - 1 ms; a longer wait is re-planned when it fires. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * The wait before the next heartbeat: at `refreshAfter` less up to 10% of the refresh interval,
 * drawn at random, so machines started together (an office powering on) spread their heartbeats,
 * and none waits past `refreshAfter`. `random` is in [0, 1).
 *
 * @param untilRefreshMs time left until the certificate's `refreshAfter` (may be negative: due now)
 * @param intervalMs the certificate's `refreshAfter` - `issuedAt`, in milliseconds
 */
export function heartbeatDelayMs(untilRefreshMs: number, intervalMs: number, random: number): number {
  return clampTimer(untilRefreshMs - random * HEARTBEAT_JITTER * intervalMs);
}

/**
 * The wait before retrying after `failures` failed heartbeats in a row (network error, 429, 5xx, no
 * free seat): 10% of the refresh interval, doubling with each failure up to the whole interval, less
 * up to 10% at random, and at least 5 s. A lease lasts three intervals, so the first retries come
 * well before it ends, and a machine that stays refused calls about once per interval, within the
 * server's per-machine budget (three times the heartbeat rate).
 */
export function retryDelayMs(intervalMs: number, failures: number, random: number): number {
  const base = Math.min(intervalMs, intervalMs * HEARTBEAT_JITTER * 2 ** Math.max(0, failures - 1));
  return clampTimer(Math.max(MIN_RETRY_MS, base * (1 - random * HEARTBEAT_JITTER)));
}

const clampTimer = (ms: number): number => Math.min(MAX_TIMER_MS, Math.max(0, Math.round(ms)));

/**
 * The timers the heartbeat uses; the default is the global `setTimeout`, with `unref()` where the
 * runtime has it (Node, Electron's main process), so a pending heartbeat never keeps a process alive.
 * Tests pass their own to run the heartbeat on a fake clock.
 */
export interface HeartbeatTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The global timers, unref'd. */
export const defaultTimers: HeartbeatTimers = {
  setTimeout(run, ms) {
    const handle = globalThis.setTimeout(run, ms);
    (handle as { unref?: () => void }).unref?.();
    return handle;
  },
  clearTimeout(handle) {
    globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

/** One pending heartbeat at most: scheduling replaces the pending one. */
export class HeartbeatSchedule {
  readonly #timers: HeartbeatTimers;
  #handle: unknown = null;
  #pending = false;
  /** The certificate the pending heartbeat was planned for (a new certificate re-plans it). */
  plannedFor: string | null = null;

  constructor(timers: HeartbeatTimers) {
    this.#timers = timers;
  }

  /** True while a heartbeat is pending. */
  get pending(): boolean {
    return this.#pending;
  }

  /** Runs `beat` in `delayMs`, replacing the pending heartbeat. */
  schedule(delayMs: number, certificate: string | null, beat: () => void): void {
    this.stop();
    this.#pending = true;
    this.plannedFor = certificate;
    this.#handle = this.#timers.setTimeout(() => {
      this.#pending = false;
      this.#handle = null;
      beat();
    }, delayMs);
  }

  /** Cancels the pending heartbeat, if any. */
  stop(): void {
    if (this.#pending) this.#timers.clearTimeout(this.#handle);
    this.#pending = false;
    this.#handle = null;
    this.plannedFor = null;
  }
}
