import type { LicenseStatus } from '@svc-licensing/cert-format';
import { LicensingError } from './errors.js';
import type { LicenseRecord } from './records.js';
import { audit } from './audit.js';
import type { EngineContext } from './_internal/context.js';
import { now, owned, transact } from './_internal/context.js';
import { licenseViews } from './_internal/license-load.js';
import { saveLicense, withStatus } from './_internal/status.js';
import type { LicenseView } from './views.js';

type Decide = (license: LicenseRecord) => LicenseStatus;

async function changeStatus(ctx: EngineContext, accountId: string, id: string, decide: Decide): Promise<LicenseView> {
  return transact(ctx, async (tx) => {
    const license = await owned(tx, 'licenses', accountId, id, 'license', true);
    if (license.status === 'revoked') throw new LicensingError('conflict', 'the license is revoked; it cannot change');
    const next = withStatus(license, decide(license));
    const saved = next === license ? license : await saveLicense(ctx, tx, license, next, 'vendor');
    return licenseViews(tx)(saved);
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
    const found = await owned(tx, 'activations', accountId, activationId, 'activation');
    const license = await owned(tx, 'licenses', accountId, found.licenseId, 'license', true);
    if (license.status === 'revoked') throw new LicensingError('conflict', `license ${license.id} is revoked; its machines cannot change`);
    // Re-read under the license lock: a concurrent deactivation may have removed it.
    const activation = await tx.get('activations', activationId, { lock: true });
    if (!activation) throw new LicensingError('not_found', `activation ${activationId} not found`);
    await tx.delete('activations', activationId);
    const next = { ...license, activationCount: Math.max(0, license.activationCount - 1), updatedAt: now(ctx) };
    await tx.update('licenses', next);
    await audit(ctx, tx, {
      accountId,
      type: 'activation.deleted',
      licenseId: license.id,
      data: { activation: activationId, fingerprint: activation.fingerprint, source: 'vendor' },
    });
    return licenseViews(tx)(next);
  });
}
