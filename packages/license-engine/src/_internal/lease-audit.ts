import type { AccountRecord, ActivationRecord } from './records.js';
import type { StoreTx } from './store.js';
import type { EngineContext } from './context.js';
import { audit } from './audit.js';
import { activationView } from './record-views.js';
import { borrowOf } from './lease.js';

/** Who ended a borrow early (`lease.returned`'s `source`). */
export type ReturnSource = 'client' | 'vendor' | 'portal' | 'plan_change';

/** Records `lease.returned` when `activation` held a borrow at `nowMs` and is being freed (or its lease cleared). */
export async function recordReturnedBorrow(
  ctx: EngineContext,
  tx: StoreTx,
  activation: ActivationRecord,
  account: AccountRecord | undefined,
  source: ReturnSource,
): Promise<void> {
  const nowMs = ctx.clock.now();
  const until = borrowOf(activation, nowMs);
  if (until === null) return;
  await audit(ctx, tx, {
    accountId: activation.accountId,
    type: 'lease.returned',
    licenseId: activation.licenseId,
    data: { activation: activation.id, fingerprint: activation.fingerprint, borrowedUntil: until, source },
    ...(account ? { account } : {}),
    view: () => activationView(activation, nowMs),
  });
}

/**
 * Records `lease.expired` for a lapsed lease not recorded yet and answers the row marked recorded
 * (the caller writes it, or deletes the row). Each lapse is recorded once, whoever sees it first.
 */
export async function recordLapse(
  ctx: EngineContext,
  tx: StoreTx,
  activation: ActivationRecord,
  account: AccountRecord | undefined,
): Promise<ActivationRecord> {
  const end = activation.leaseExpiresAt ?? null;
  if (end === null || activation.lapseRecorded === end) return activation;
  const marked = { ...activation, lapseRecorded: end };
  await audit(ctx, tx, {
    accountId: activation.accountId,
    type: 'lease.expired',
    licenseId: activation.licenseId,
    data: { activation: activation.id, fingerprint: activation.fingerprint, leaseExpiresAt: end },
    ...(account ? { account } : {}),
    view: () => activationView(marked, ctx.clock.now()),
  });
  return marked;
}
