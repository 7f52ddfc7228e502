import { LicensingError } from './errors.js';
import type { StoreTx } from './store.js';
import { lockOrInsert } from './claim.js';
import type { EngineContext } from './context.js';
import { toTimestamp } from './time.js';

/** Counts one use in the current clock hour; beyond `limit` throws `rate_limited` (nothing written). */
export async function spendHourlyBudget(
  ctx: EngineContext,
  tx: StoreTx,
  name: string,
  accountId: string,
  limit: number | null,
  what: string,
): Promise<void> {
  if (limit === null) return;
  const hour = Math.floor(ctx.clock.now() / 3_600_000);
  const id = `${name}:${hour}`;
  const expiresAt = toTimestamp((hour + 1) * 3_600_000);
  // The hour's first use inserts the counter (a throw below rolls it back with everything else).
  const counter = await lockOrInsert(
    (lock) => tx.get('counters', id, lock),
    () => tx.insert('counters', { id, accountId, count: 1, expiresAt }),
  );
  if (!counter) {
    if (limit < 1) throw new LicensingError('rate_limited', `hourly budget of ${limit} ${what} used up`);
    return;
  }
  if (counter.count >= limit) throw new LicensingError('rate_limited', `hourly budget of ${limit} ${what} used up`);
  await tx.update('counters', { ...counter, count: counter.count + 1 });
}
