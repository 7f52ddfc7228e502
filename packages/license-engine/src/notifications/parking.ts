import type { StoreTx } from '../_internal/store.js';
import type { EngineContext } from '../_internal/context.js';
import { now } from '../_internal/context.js';

/**
 * Deliveries of a disabled endpoint are parked when they come due (pending, `dueAt` null); enabling
 * the endpoint sends them at once, each with a fresh retry window.
 */
export async function unparkDeliveries(ctx: EngineContext, tx: StoreTx, endpointId: string): Promise<void> {
  const at = ctx.clock.now();
  for (const d of await tx.findMany('notificationDeliveries', { endpointId, state: 'pending' })) {
    if (d.dueAt !== null) continue;
    await tx.update('notificationDeliveries', { ...d, dueAt: at, nextAttemptAt: at, roundAttempts: 0, firstAttemptAt: null, updatedAt: now(ctx) }, { defer: true });
  }
}
