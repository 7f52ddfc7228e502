import type { LicenseStatus } from '@svc-licensing/cert-format';
import type { LicenseRecord } from '../records.js';
import type { StoreTx } from '../store.js';
import { audit } from '../audit.js';
import type { EngineContext } from './context.js';
import { now } from './context.js';

/** Statuses that hold the previous status for `reinstate`. */
const HOLDING: readonly LicenseStatus[] = ['suspended', 'refunded'];

/**
 * The license moved to `to`, with `heldStatus` kept right: entering suspended or refunded from
 * another status remembers that status; moving between the two keeps the remembered one;
 * any other status clears it. Writes nothing and logs nothing when the status is unchanged.
 */
export function withStatus(license: LicenseRecord, to: LicenseStatus): LicenseRecord {
  if (license.status === to) return license;
  let heldStatus: LicenseStatus | null = null;
  if (HOLDING.includes(to)) heldStatus = HOLDING.includes(license.status) ? license.heldStatus : license.status;
  return { ...license, status: to, heldStatus };
}

/** Writes the license and, when its status changed, a `license.status_changed` event. */
export async function saveLicense(
  ctx: EngineContext,
  tx: StoreTx,
  before: LicenseRecord,
  after: LicenseRecord,
  source: string,
): Promise<LicenseRecord> {
  const next = { ...after, updatedAt: now(ctx) };
  await tx.update('licenses', next);
  if (before.status !== after.status) {
    await audit(ctx, tx, {
      accountId: after.accountId,
      type: 'license.status_changed',
      licenseId: after.id,
      data: { from: before.status, to: after.status, source },
    });
  }
  return next;
}
