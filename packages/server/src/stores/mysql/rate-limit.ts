import type { ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { rawUnitOf } from './store.js';
import type { MySqlStore } from './store.js';

/** The server's rate-limit port (structurally the same as `RateLimitStore` of the HTTP layer). */
export interface MySqlRateLimitStore {
  hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
  /** Counts one call against each of several distinct keys in one transaction (two statements). */
  hitMany(keys: readonly string[], windowMs: number, now: number): Promise<Array<{ count: number; resetAt: number }>>;
}

interface WindowRow extends RowDataPacket {
  bucket: string;
  count: number | string;
  reset_at: number | string;
}

/** How often one process deletes windows that have ended. */
const SWEEP_EVERY_MS = 60_000;

/**
 * Rate-limit windows in the store's database, so every server instance counts against the same
 * budgets. A hit is one short transaction: an upsert (a new window when the old one has ended,
 * else count + 1) and a read of the rows it still holds locked, so each call sees its own count.
 * `hitMany` counts several buckets (the client API's IP and key + IP) in the same two statements.
 *
 * @example
 * ```ts
 * const store = createMySqlStore(url);
 * const app = createApp({ engine, publicBaseUrl, rateLimitStore: createMySqlRateLimitStore(store) });
 * ```
 */
export function createMySqlRateLimitStore(store: MySqlStore): MySqlRateLimitStore {
  const unit = rawUnitOf(store);
  let nextSweep = 0;
  const hitMany = async (keys: readonly string[], windowMs: number, now: number) => {
    if (keys.length === 0) return [];
    if (new Set(keys).size !== keys.length) throw new TypeError('hitMany needs distinct keys');
    if (now >= nextSweep) {
      nextSweep = now + SWEEP_EVERY_MS;
      unit((run) => run<ResultSetHeader>('DELETE FROM `rate_limits` WHERE `reset_at` <= ? LIMIT 1000', [now])).catch(() => undefined);
    }
    const resetAt = now + windowMs;
    // Rows are locked in one order (sorted keys), so two calls on the same buckets cannot deadlock each other.
    const sorted = [...keys].sort();
    return unit(async (run) => {
      // The upsert keeps the rows locked until COMMIT, so the read sees exactly this call's counts.
      await run<ResultSetHeader>(
        `INSERT INTO \`rate_limits\` (\`bucket\`, \`count\`, \`reset_at\`) VALUES ${sorted.map(() => '(?, 1, ?)').join(', ')} ` +
          'ON DUPLICATE KEY UPDATE `count` = IF(`reset_at` <= ?, 1, `count` + 1), `reset_at` = IF(`reset_at` <= ?, ?, `reset_at`)',
        [...sorted.flatMap((key) => [key, resetAt]), now, now, resetAt],
      );
      const rows = await run<WindowRow[]>(
        `SELECT \`bucket\`, \`count\`, \`reset_at\` FROM \`rate_limits\` WHERE \`bucket\` IN (${sorted.map(() => '?').join(', ')})`,
        sorted,
      );
      const byBucket = new Map(rows.map((row) => [row.bucket, { count: Number(row.count), resetAt: Number(row.reset_at) }]));
      return keys.map((key) => byBucket.get(key) ?? { count: 1, resetAt });
    });
  };
  return {
    async hit(key, windowMs, now) {
      const [result] = await hitMany([key], windowMs, now);
      return result!;
    },
    hitMany,
  };
}
