import type { ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { rawUnitOf } from './store.js';
import type { MySqlStore } from './store.js';

/** The server's rate-limit port (structurally the same as `RateLimitStore` of the HTTP layer). */
export interface MySqlRateLimitStore {
  hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
}

interface WindowRow extends RowDataPacket {
  count: number | string;
  reset_at: number | string;
}

/** How often one process deletes windows that have ended. */
const SWEEP_EVERY_MS = 60_000;

/**
 * Rate-limit windows in the store's database, so every server instance counts against the same
 * budgets. A hit is one short transaction: an upsert (a new window when the old one has ended,
 * else count + 1) and a read of the row it still holds locked, so each call sees its own count.
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
  return {
    async hit(key, windowMs, now) {
      if (now >= nextSweep) {
        nextSweep = now + SWEEP_EVERY_MS;
        unit((run) => run<ResultSetHeader>('DELETE FROM `rate_limits` WHERE `reset_at` <= ? LIMIT 1000', [now])).catch(() => undefined);
      }
      const resetAt = now + windowMs;
      // The upsert keeps the row locked until COMMIT, so the read sees exactly this call's count.
      return unit(async (run) => {
        await run<ResultSetHeader>(
          'INSERT INTO `rate_limits` (`bucket`, `count`, `reset_at`) VALUES (?, 1, ?) ON DUPLICATE KEY UPDATE ' +
            '`count` = IF(`reset_at` <= ?, 1, `count` + 1), `reset_at` = IF(`reset_at` <= ?, ?, `reset_at`)',
          [key, resetAt, now, now, resetAt],
        );
        const [row] = await run<WindowRow[]>('SELECT `count`, `reset_at` FROM `rate_limits` WHERE `bucket` = ?', [key]);
        return row ? { count: Number(row.count), resetAt: Number(row.reset_at) } : { count: 1, resetAt };
      });
    },
  };
}
