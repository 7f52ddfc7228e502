import type { AccountRecord, LicenseRecord } from './records.js';
import type { StoreTx } from './store.js';
import type { EngineContext } from './context.js';
import { audit } from './audit.js';
import { activationView } from './record-views.js';
import { isLive } from './lease.js';
import { recordReturnedBorrow } from './lease-audit.js';
import { isFloating, leaseSecondsOf } from './plan-seats.js';
import { toTimestamp } from './time.js';

/**
 * The seats of a license moved to another plan by a payment-provider event, in the same unit
 * (docs/floating-seats.md, "Plan changes by webhook"): machine to floating gives every machine a
 * lease from now; floating to machine turns live leases into machine activations (a borrow ends:
 * `lease.returned`, source `plan_change`) and removes lapsed rows (`activation.deleted`, source
 * `plan_change`). Between plans of one mode nothing changes. Answers `after` with its activation
 * count (and lease sequence) adjusted; the caller writes it.
 */
export async function reseatOnPlanChange(
  ctx: EngineContext,
  tx: StoreTx,
  before: LicenseRecord,
  after: LicenseRecord,
  account: AccountRecord | undefined,
): Promise<LicenseRecord> {
  if (before.planId === after.planId) return after;
  const [oldPlan, newPlan] = await Promise.all([tx.get('plans', before.planId), tx.get('plans', after.planId)]);
  if (!oldPlan || !newPlan || isFloating(oldPlan) === isFloating(newPlan)) return after;
  const activations = await tx.findMany('activations', { licenseId: before.id });
  const nowMs = ctx.clock.now();
  if (isFloating(newPlan)) {
    const leaseExpiresAt = toTimestamp(Math.floor(nowMs / 1000) * 1000 + leaseSecondsOf(newPlan) * 1000);
    for (const a of activations) await tx.update('activations', { ...a, leaseExpiresAt, borrowedUntil: null }, { defer: true });
    return { ...after, leaseSeq: (after.leaseSeq ?? 0) + 1 };
  }
  let removed = 0;
  for (const a of activations) {
    if (isLive(a, nowMs)) {
      await recordReturnedBorrow(ctx, tx, a, account, 'plan_change');
      await tx.update('activations', { ...a, leaseExpiresAt: null, borrowedUntil: null }, { defer: true });
      continue;
    }
    await tx.delete('activations', a.id, { defer: true });
    removed++;
    await audit(ctx, tx, {
      accountId: a.accountId,
      type: 'activation.deleted',
      licenseId: a.licenseId,
      data: { activation: a.id, fingerprint: a.fingerprint, source: 'plan_change' },
      ...(account ? { account } : {}),
      view: () => activationView(a, nowMs),
    });
  }
  return { ...after, activationCount: Math.max(0, after.activationCount - removed) };
}
