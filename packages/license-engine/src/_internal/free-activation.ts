import type { AccountRecord, ActivationRecord, Actor, LicenseRecord } from './records.js';
import type { StoreTx } from './store.js';
import type { EngineContext } from './context.js';
import { audit } from './audit.js';
import { now } from './context.js';
import { recordReturnedBorrow } from './lease-audit.js';
import { activationView } from './record-views.js';
import { recordRevocation } from './revocations.js';

/** Who freed a machine (`activation.deleted`'s `source`). */
export type FreeSource = 'client' | 'vendor' | 'portal';

/**
 * Frees `activation`'s seat on `license` (locked by the caller) in the caller's unit: deletes the
 * row, counts the license down, records an early-returned borrow, puts the machine's older
 * certificates on the product's revocation list and audits `activation.deleted` with its source.
 * The client's own deactivation, the vendor's DELETE and the portal's release all free this way.
 * Answers the license as written.
 */
export async function freeActivation(
  ctx: EngineContext,
  tx: StoreTx,
  freeing: { license: LicenseRecord; activation: ActivationRecord; account: AccountRecord | null | undefined; source: FreeSource; actor?: Actor; deferDelete?: boolean },
): Promise<LicenseRecord> {
  const { license, activation, source } = freeing;
  await tx.delete('activations', activation.id, freeing.deferDelete ? { defer: true } : undefined);
  const freed = { ...license, activationCount: Math.max(0, license.activationCount - 1), updatedAt: now(ctx) };
  // The product is locked before the license's write is sent (see saveLicense: the write's foreign-key
  // check would otherwise hold a shared product lock that concurrent freeings deadlock upgrading).
  await recordRevocation(ctx, tx, { kind: 'activation', license: freed, activation });
  await tx.update('licenses', freed, { defer: true });
  await recordReturnedBorrow(ctx, tx, activation, freeing.account ?? undefined, source);
  await audit(ctx, tx, {
    accountId: license.accountId,
    type: 'activation.deleted',
    licenseId: license.id,
    data: { activation: activation.id, fingerprint: activation.fingerprint, source },
    ...(freeing.actor ? { actor: freeing.actor } : {}),
    ...(freeing.account !== undefined ? { account: freeing.account } : {}),
    view: () => activationView(activation, ctx.clock.now()),
  });
  return freed;
}
