import type { LicenseStatus } from '@svc-licensing/cert-format';
import type { AccountRecord, LicenseRecord } from './records.js';
import type { StoreTx } from './store.js';
import { audit } from './audit.js';
import type { EngineContext } from './context.js';
import { now } from './context.js';
import { licenseViews } from './license-load.js';
import { recordRevocation, revocationChangeOf } from './revocations.js';

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

/**
 * Writes the license and, when its status changed, a `license.status_changed` event, and the
 * revocation list's entry when the change lists or unlists the license (revoke, refund, chargeback,
 * reinstatement). `views`: the unit's license views, so a notification's view reads the plan and
 * product the answer reads too.
 */
export async function saveLicense(
  ctx: EngineContext,
  tx: StoreTx,
  before: LicenseRecord,
  after: LicenseRecord,
  source: string,
  account?: AccountRecord,
  views: ReturnType<typeof licenseViews> = licenseViews(tx, ctx.clock.now()),
): Promise<LicenseRecord> {
  const next = { ...after, updatedAt: now(ctx) };
  const listing = revocationChangeOf(before.status, after.status);
  // With a list change the product is locked first and the license's write is held after it: written
  // before, the license row's foreign-key check would hold a shared lock on the product that two
  // revokes of one product then both try to upgrade (a deadlock on MySQL), and it costs no round trip.
  if (listing !== null) {
    const product = await recordRevocation(ctx, tx, { kind: 'license', license: next, change: listing });
    // The product as written (locked, its seq moved): the views need not read it again.
    if (product) views.remember(product);
  }
  await tx.update('licenses', next, listing === null ? undefined : { defer: true });
  if (before.status !== after.status) {
    await audit(ctx, tx, {
      accountId: after.accountId,
      type: 'license.status_changed',
      licenseId: after.id,
      data: { from: before.status, to: after.status, source },
      ...(account ? { account } : {}),
      view: () => views(next),
    });
  }
  return next;
}
