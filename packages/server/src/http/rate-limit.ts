import { oldestFirst } from './oldest-first.js';

/**
 * Where rate-limit counters live. The memory store suits one process; a shared store (Redis,
 * the database) implements the same two methods so several server processes share budgets.
 *
 * @example
 * const store: RateLimitStore = createMemoryRateLimitStore();
 * const { count, resetAt } = await store.hit('vendor:acc_1', 3_600_000, Date.now());
 */
export interface RateLimitStore {
  /**
   * Counts one call against `key` in a fixed window of `windowMs` that starts at the first call,
   * and returns the count including this call and when the window ends (ms since the epoch).
   */
  hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
  /**
   * Optional: counts one call against each of several distinct `keys` at once (one round trip for
   * a shared store), returning their results in the order of `keys`. Without it, `hit` is called
   * for each key. `limits` (one per key) lets a store open no new window for a call that one of
   * its existing windows already refuses: the existing windows count it, a key without a window
   * reports count 0; the call is refused either way.
   */
  hitMany?(
    keys: readonly string[],
    windowMs: number,
    now: number,
    limits?: readonly number[],
  ): Promise<Array<{ count: number; resetAt: number }>>;
}

/** Options of {@link createMemoryRateLimitStore}. */
export interface MemoryRateLimitOptions {
  /**
   * Most windows kept at once (default 100,000: a few tens of MiB at most). Past it the oldest
   * windows are dropped first, as if they had ended: their callers start a new window.
   */
  maxWindows?: number;
}

/** The in-memory store; `size` is the number of windows it holds now. */
export interface MemoryRateLimitStore extends RateLimitStore {
  readonly size: number;
}

/** Default cap of {@link createMemoryRateLimitStore}. */
export const DEFAULT_MAX_RATE_LIMIT_WINDOWS = 100_000;

/**
 * A `RateLimitStore` in process memory, bounded: expired windows are swept as new ones open, and
 * past `maxWindows` the oldest windows are evicted. A call that an existing window already refuses
 * opens no new window (`hitMany` with limits; existing windows still count it), so a flood of refused calls
 * with ever new license keys allocates nothing.
 *
 * @example
 * const app = createApp({ engine, publicBaseUrl, rateLimitStore: createMemoryRateLimitStore({ maxWindows: 50_000 }) });
 */
export function createMemoryRateLimitStore(options: MemoryRateLimitOptions = {}): MemoryRateLimitStore {
  const maxWindows = options.maxWindows ?? DEFAULT_MAX_RATE_LIMIT_WINDOWS;
  if (!Number.isInteger(maxWindows) || maxWindows < 1) throw new TypeError(`maxWindows must be a positive integer, got ${maxWindows}`);
  // Insertion order is opening order: the first entries are the oldest windows.
  const windows = new Map<string, { count: number; resetAt: number }>();
  const dropOldest = oldestFirst(windows);
  let nextSweep = 0;
  const sweep = (now: number) => {
    if (now < nextSweep) return;
    for (const [k, w] of windows) if (w.resetAt <= now) windows.delete(k);
    nextSweep = now + 60_000;
  };
  const live = (key: string, now: number) => {
    const window = windows.get(key);
    return window !== undefined && window.resetAt > now ? window : undefined;
  };
  const open = (key: string, windowMs: number, now: number) => {
    windows.delete(key); // an ended window of this key moves to the end
    const window = { count: 0, resetAt: now + windowMs };
    windows.set(key, window);
    while (windows.size > maxWindows) dropOldest();
    return window;
  };
  const hit = (key: string, windowMs: number, now: number) => {
    const window = live(key, now) ?? open(key, windowMs, now);
    window.count += 1;
    return { count: window.count, resetAt: window.resetAt };
  };
  return {
    get size() {
      return windows.size;
    },
    async hit(key, windowMs, now) {
      sweep(now);
      return hit(key, windowMs, now);
    },
    async hitMany(keys, windowMs, now, limits) {
      sweep(now);
      // Each key's live window looked up once: whether one refuses the call, then the counting.
      const found = new Array<{ count: number; resetAt: number } | undefined>(keys.length);
      let refused = false;
      for (let i = 0; i < keys.length; i++) {
        const window = live(keys[i]!, now);
        found[i] = window;
        if (limits !== undefined && window !== undefined && window.count >= (limits[i] ?? Number.POSITIVE_INFINITY)) refused = true;
      }
      const results = new Array<{ count: number; resetAt: number }>(keys.length);
      let opened = false;
      for (let i = 0; i < keys.length; i++) {
        // A window opened for an earlier key may have evicted this one's (past `maxWindows`).
        let window = opened ? live(keys[i]!, now) : found[i];
        if (window === undefined) {
          // Already refused by a window that exists: counted in the windows that exist, none is opened.
          if (refused) {
            results[i] = { count: 0, resetAt: now + windowMs };
            continue;
          }
          window = open(keys[i]!, windowMs, now);
          opened = true;
        }
        window.count += 1;
        results[i] = { count: window.count, resetAt: window.resetAt };
      }
      return results;
    },
  };
}

/** Requests allowed per hour; every value is configurable (tests raise and lower them). */
export interface RateLimits {
  /** Vendor API, per account. Spec: 5,000. */
  vendorPerAccount: number;
  /** Client API, per license key and IP address. Spec: 30. */
  clientPerKeyAndIp: number;
  /** Client API, per IP address. Spec: 600. */
  clientPerIp: number;
  /**
   * Client API calls on floating-plan keys, per IP address (docs/floating-seats.md): 6,000. Their
   * per key and machine budget follows the plan's lease (`floatingBudgetPerHour`), scaled to `windowMs`.
   */
  clientFloatingPerIp: number;
  /** Sign-in link requests (`POST /v1/session/link`) per e-mail address (docs/decisions.md): 5. */
  signInPerEmail: number;
  /** Sign-in link requests per IP address: 30. */
  signInPerIp: number;
  /** Window length in milliseconds. Spec: one hour. */
  windowMs: number;
}

/** The spec's limits. */
export const DEFAULT_RATE_LIMITS: RateLimits = {
  vendorPerAccount: 5000,
  clientPerKeyAndIp: 30,
  clientPerIp: 600,
  clientFloatingPerIp: 6000,
  signInPerEmail: 5,
  signInPerIp: 30,
  windowMs: 3_600_000,
};

/** The outcome of one counted call. */
export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** When the window ends, ms since the epoch. */
  resetAt: number;
}

/**
 * Counts a call against a bucket.
 *
 * @example
 * const result = await consume(store, 'vendor:acc_1', 5000, 3_600_000, Date.now());
 */
export async function consume(store: RateLimitStore, key: string, limit: number, windowMs: number, now: number): Promise<RateLimitResult> {
  const { count, resetAt } = await store.hit(key, windowMs, now);
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetAt };
}

/**
 * Counts a call against several buckets of one window length at once, through the store's
 * `hitMany` when it has one (the client API's key + IP and IP buckets in one round trip).
 *
 * @example
 * const [byIp, byKey] = await consumeMany(store, [{ key: 'client-ip:10.0.0.1', limit: 600 }, { key: 'client-key:ab12:10.0.0.1', limit: 30 }], 3_600_000, Date.now());
 */
export async function consumeMany(
  store: RateLimitStore,
  buckets: ReadonlyArray<{ key: string; limit: number }>,
  windowMs: number,
  now: number,
): Promise<RateLimitResult[]> {
  const n = buckets.length;
  const keys = new Array<string>(n);
  const limits = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    keys[i] = buckets[i]!.key;
    limits[i] = buckets[i]!.limit;
  }
  // Distinct keys (a client call's two buckets always are): compared directly, not through a Set.
  const distinct = n === 2 ? keys[0] !== keys[1] : new Set(keys).size === n;
  const hits =
    store.hitMany !== undefined && n > 1 && distinct
      ? await store.hitMany(keys, windowMs, now, limits)
      : await Promise.all(keys.map((key) => store.hit(key, windowMs, now)));
  const results = new Array<RateLimitResult>(n);
  for (let i = 0; i < n; i++) {
    const { count, resetAt } = hits[i]!;
    const limit = limits[i]!;
    results[i] = { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetAt };
  }
  return results;
}

/** Of several results, the one the caller is closest to exceeding (a refused one first). */
export function binding(results: RateLimitResult[]): RateLimitResult {
  return results.reduce((a, b) => {
    if (a.allowed !== b.allowed) return a.allowed ? b : a;
    return b.remaining < a.remaining ? b : a;
  });
}

/**
 * `X-RateLimit-*` headers (reset as Unix seconds), plus `Retry-After` (seconds) when refused,
 * written into `into` (a request's own headers: no object per call to merge) and returned.
 */
export function rateLimitHeaders(result: RateLimitResult, now: number, into: Record<string, string> = {}): Record<string, string> {
  into['x-ratelimit-limit'] = String(result.limit);
  into['x-ratelimit-remaining'] = String(result.remaining);
  into['x-ratelimit-reset'] = String(Math.ceil(result.resetAt / 1000));
  if (!result.allowed) into['retry-after'] = String(Math.max(1, Math.ceil((result.resetAt - now) / 1000)));
  return into;
}

/**
 * The limiter key of a license key from one address: by the key's `hashLicenseKey` (the SHA-256 of
 * its normalized form), so the clear key is never kept and differently typed forms of one key
 * share a budget.
 */
export function licenseKeyBucket(keyHash: string, ip: string): string {
  return `client-key:${keyHash}:${ip}`;
}
