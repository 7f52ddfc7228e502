import type { LicenseStatus } from '@svc-licensing/cert-format';
import { LicensingError } from '../_internal/errors.js';
import type { LicenseRecord } from '../_internal/records.js';
import { audit } from '../_internal/audit.js';
import { freeActivation } from '../_internal/free-activation.js';
import type { EngineContext } from '../_internal/context.js';
import { now, owned, transact } from '../_internal/context.js';
import { licenseViews } from '../_internal/license-load.js';
import { saveLicense, withStatus } from '../_internal/status.js';
import { together } from '../_internal/together.js';
import type { LicenseView } from '../_internal/views.js';

type Decide = (license: LicenseRecord) => LicenseStatus;

async function changeStatus(ctx: EngineContext, accountId: string, id: string, decide: Decide): Promise<LicenseView> {
  return transact(ctx, async (tx) => {
    // The account (whether anything subscribes to the change) and, where the store can find them by the license's ID, the
    // answer's plan and product go with the license's read: no round trip of their own.
    const [license, account, parents] = await together([
      owned(tx, 'licenses', accountId, id, 'license', true),
      tx.get('accounts', accountId),
      tx.readLicenseParents ? tx.readLicenseParents(id) : null,
    ]);
    if (license.status === 'revoked') throw new LicensingError('conflict', 'the license is revoked; it cannot change');
    const next = withStatus(license, decide(license));
    const views = licenseViews(tx, ctx.clock.now());
    if (parents?.plan) views.rememberPlan(parents.plan);
    if (parents?.product) views.remember(parents.product);
    // The answer's plan and product are read before the writes (the unit's snapshot is the same), so no read follows them
    // and on MariaDB the held writes go with the COMMIT in one query: a revoke's lock on the product row (the revocation
    // list's seq, written first) is then held for that query only, not across a round trip and the event loop's queue.
    await views.preload(license);
    const saved = next === license ? license : await saveLicense(ctx, tx, license, next, 'vendor', account ?? undefined, views);
    return views(saved);
  });
}

/**
 * `POST /licenses/{id}/suspend`: from any status but revoked (`conflict`); suspending a
 * suspended license changes nothing. The status held before is kept for `reinstate`.
 */
export function suspendLicense(ctx: EngineContext, accountId: string, id: string): Promise<LicenseView> {
  return changeStatus(ctx, accountId, id, () => 'suspended');
}

/** `POST /licenses/{id}/reinstate`: a suspended or refunded license returns to the status held before; else `conflict`. */
export function reinstateLicense(ctx: EngineContext, accountId: string, id: string): Promise<LicenseView> {
  return changeStatus(ctx, accountId, id, (license) => {
    if (license.status !== 'suspended' && license.status !== 'refunded') {
      throw new LicensingError('conflict', `only a suspended or refunded license can be reinstated; this one is ${license.status}`);
    }
    return license.heldStatus ?? 'active';
  });
}

/** `POST /licenses/{id}/revoke`: final; revoking again, like any later change, is `conflict`. */
export function revokeLicense(ctx: EngineContext, accountId: string, id: string): Promise<LicenseView> {
  return changeStatus(ctx, accountId, id, () => 'revoked');
}

/** `DELETE /activations/{id}`: frees the machine's seat; returns the license. `conflict` on a revoked license (revoked is final): nothing changes. */
export async function deleteActivation(ctx: EngineContext, accountId: string, activationId: string): Promise<LicenseView> {
  return transact(ctx, async (tx) => {
    const [found, account] = await together([owned(tx, 'activations', accountId, activationId, 'activation'), tx.get('accounts', accountId)]);
    const license = await owned(tx, 'licenses', accountId, found.licenseId, 'license', true);
    if (license.status === 'revoked') throw new LicensingError('conflict', `license ${license.id} is revoked; its machines cannot change`);
    // Re-read under the license lock: a concurrent deactivation may have removed it.
    const activation = await tx.get('activations', activationId, { lock: true });
    if (!activation) throw new LicensingError('not_found', `activation ${activationId} not found`);
    const next = await freeActivation(ctx, tx, { license, activation, account, source: 'vendor' });
    return licenseViews(tx, ctx.clock.now())(next);
  });
}
