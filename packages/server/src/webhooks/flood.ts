/** Failed deliveries (no integration, a signature that does not verify) an address may send a minute before its lookups queue. */
export const FAILURES_PER_MINUTE = 30;
const WINDOW_MS = 60_000;
/** An address that delivered a verified event within this time is never queued (the provider's). */
const TRUSTED_MS = 24 * 3_600_000;
const ADDRESSES = 10_000;

/**
 * Bounds what an unauthenticated flood of the webhook receiver costs without refusing anything:
 * once an address has failed `FAILURES_PER_MINUTE` times in a minute (and delivered nothing that
 * verified in a day), its deliveries that need a database read to find their integration wait in
 * one line, one read at a time for that address. A correctly signed delivery from it still gets
 * its read and is processed, later; a flood of made-up integration IDs costs one read at a time.
 */
export class FloodGuard {
  readonly #failures = new Map<string, { count: number; since: number }>();
  readonly #verified = new Map<string, number>();
  readonly #lines = new Map<string, Promise<void>>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Counts a failed delivery from `address`. */
  failed(address: string): void {
    const at = this.#now();
    const seen = this.#failures.get(address);
    if (seen === undefined || at - seen.since >= WINDOW_MS) {
      if (this.#failures.size >= ADDRESSES) this.#failures.clear();
      this.#failures.set(address, { count: 1, since: at });
    } else seen.count += 1;
  }

  /** Records a delivery from `address` that verified: the address is the provider's. */
  verified(address: string): void {
    if (this.#verified.size >= ADDRESSES) this.#verified.clear();
    this.#verified.set(address, this.#now());
  }

  /** Whether `address` is flooding: too many failures this minute, nothing verified in a day. */
  flooding(address: string): boolean {
    const at = this.#now();
    const seen = this.#failures.get(address);
    if (seen === undefined || at - seen.since >= WINDOW_MS || seen.count < FAILURES_PER_MINUTE) return false;
    const trusted = this.#verified.get(address);
    return trusted === undefined || at - trusted >= TRUSTED_MS;
  }

  /** Runs `work` now, or, for a flooding address, after the address's earlier queued work. */
  async read<T>(address: string, work: () => Promise<T>): Promise<T> {
    if (!this.flooding(address)) return work();
    const before = this.#lines.get(address) ?? Promise.resolve();
    const run = before.then(work);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.#lines.set(address, tail);
    void tail.then(() => {
      if (this.#lines.get(address) === tail) this.#lines.delete(address);
    });
    return run;
  }
}
