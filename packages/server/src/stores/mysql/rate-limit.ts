import type { ResultSetHeader } from 'mysql2/promise';
import { rawAutocommitOf } from './store.js';
import type { MySqlStore } from './store.js';

/** The server's rate-limit port (structurally the same as `RateLimitStore` of the HTTP layer). */
export interface MySqlRateLimitStore {
  hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
  /** Counts one call against each of several distinct keys: one autocommitted statement per key, run in parallel. */
  hitMany(keys: readonly string[], windowMs: number, now: number): Promise<Array<{ count: number; resetAt: number }>>;
}

/** How often one process deletes windows that have ended. */
const SWEEP_EVERY_MS = 60_000;
/** The statement returns `count * OFFSET + (reset_at - now)` through `LAST_INSERT_ID(expr)`. */
const OFFSET = 2 ** 32;
/** The highest count the packed value carries exactly (the packed value stays below 2^53). */
const MAX_COUNT = 2 ** 21 - 1;

// One statement per hit: a new window when the old one has ended, else count + 1. Assignments
// run left to right: `count` tests the old `reset_at`; the `reset_at` assignment sees the new
// `count` and the old `reset_at`, and packs both new values into LAST_INSERT_ID(expr), which the
// OK packet returns as its insert id. A row that did not exist yet leaves the insert id at 0:
// its window is (1, now + windowMs).
const NEW_RESET_AT = 'IF(`reset_at` <= ?, ?, `reset_at`)';
const UPSERT =
  'INSERT INTO `rate_limits` (`bucket`, `count`, `reset_at`) VALUES (?, 1, ?) ON DUPLICATE KEY UPDATE ' +
  '`count` = IF(`reset_at` <= ?, 1, `count` + 1), ' +
  `\`reset_at\` = ${NEW_RESET_AT} + 0 * LAST_INSERT_ID(LEAST(\`count\`, ${MAX_COUNT}) * ${OFFSET} + LEAST(GREATEST(${NEW_RESET_AT} - ?, 0), ${OFFSET - 1}))`;

/**
 * Rate-limit windows in the store's database (a `MEMORY` table: counters need no durability, a
 * database restart only resets the windows), so every server instance counts against the same
 * budgets. A hit is one statement that both counts and returns the count and window end (through
 * `LAST_INSERT_ID(expr)`), so each call sees exactly its own count and no row lock outlives the
 * statement. Counts above 2,097,151 in one window are reported as 2,097,151 (far above any limit).
 *
 * @example
 * ```ts
 * const store = createMySqlStore(url);
 * const app = createApp({ engine, publicBaseUrl, rateLimitStore: createMySqlRateLimitStore(store) });
 * ```
 */
export function createMySqlRateLimitStore(store: MySqlStore): MySqlRateLimitStore {
  const autocommit = rawAutocommitOf(store);
  let nextSweep = 0;
  const hitMany = async (keys: readonly string[], windowMs: number, now: number) => {
    if (keys.length === 0) return [];
    if (new Set(keys).size !== keys.length) throw new TypeError('hitMany needs distinct keys');
    if (!(windowMs > 0 && windowMs < OFFSET)) throw new RangeError(`rate-limit window must be between 1 ms and ${OFFSET - 1} ms`);
    if (now >= nextSweep) {
      nextSweep = now + SWEEP_EVERY_MS;
      autocommit<ResultSetHeader>('DELETE FROM `rate_limits` WHERE `reset_at` <= ? LIMIT 1000', [now]).catch(() => undefined);
    }
    const resetAt = now + windowMs;
    // The table has no transactions (MEMORY): each statement runs autocommitted, its own
    // transaction (MySQL with enforce_gtid_consistency refuses two non-transactional updates in
    // one transaction), prepared, with no COMMIT round trip. Two prepared statements on two
    // connections cost the database less than both in one multi-statement text query (measured:
    // 2 x 28 µs against 95 µs). On TiDB (which ignores the engine) each is a one-row transaction.
    return Promise.all(
      keys.map(async (key) => {
        const header = await autocommit<ResultSetHeader>(UPSERT, [key, resetAt, now, now, resetAt, now, resetAt, now]);
        const packed = Number(header.insertId);
        return packed === 0 ? { count: 1, resetAt } : { count: Math.floor(packed / OFFSET), resetAt: now + (packed % OFFSET) };
      }),
    );
  };
  return {
    async hit(key, windowMs, now) {
      const [result] = await hitMany([key], windowMs, now);
      return result!;
    },
    hitMany,
  };
}

