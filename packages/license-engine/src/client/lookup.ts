import { hashLicenseKey, isFingerprint, isUsableStatus, isWellFormedLicenseKey } from '@svc-licensing/cert-format';
import type { LicenseStatus } from '@svc-licensing/cert-format';
import { LicensingError } from '../_internal/errors.js';
import type { LicensingErrorCode } from '../_internal/errors.js';
import type { AccountRecord, ActivationRecord, LicenseRecord, PlanRecord, ProductRecord, SigningKeyRecord } from '../_internal/records.js';
import type { ClientLicenseRecords, StoreTx } from '../_internal/store.js';
import { CLOSURE_DAYS } from '../_internal/account.js';
import type { EngineContext } from '../_internal/context.js';
import { validUntilOf } from '../_internal/effective.js';
import { addDays, timestampMs } from '../_internal/time.js';
import { asObject, invalid, optionalString } from '../_internal/validate.js';
import { revocationEntryId } from '../_internal/revocations.js';

/** How a client API call finds its license: the input checks, the reads and the refusals they share. */

/** Options of a client API call, set by the host (see `ClientCallOptions` in client.ts). */
export interface CallOptions {
  keyHash?: string;
}

export const REFUSALS: Partial<Record<LicenseStatus, LicensingErrorCode>> = {
  suspended: 'license_suspended',
  refunded: 'license_refunded',
  revoked: 'license_revoked',
  expired: 'license_expired',
};

export function parse(input: unknown, withName: boolean, options: CallOptions) {
  const body = asObject(input);
  if (typeof body.product !== 'string' || body.product === '' || body.product.length > 100) invalid('product must be a product ID');
  if (typeof body.key !== 'string' || !isWellFormedLicenseKey(body.key)) invalid('key is not a well-formed license key');
  if (!isFingerprint(body.fingerprint)) invalid('fingerprint must be 64 lowercase hex characters');
  return {
    product: body.product,
    keyHash: options.keyHash ?? hashLicenseKey(body.key),
    fingerprint: body.fingerprint,
    name: withName ? optionalString(body.name, 'name', 200) : null,
    platform: optionalString(body.platform, 'platform', 100),
    appVersion: optionalString(body.appVersion, 'appVersion', 100),
  };
}

export interface Found {
  product: ProductRecord;
  license: LicenseRecord;
  plan: PlanRecord;
  account: AccountRecord;
  activation: ActivationRecord | null;
  /** The product's active signing key (the lowest id if several), read along. */
  signingKey: SigningKeyRecord | null;
  /**
   * The `freedAt` of this machine's entry on the product's revocation list (it was freed from the
   * license and the entry stands), read along when asked (`find`'s `freeing`), else null.
   */
  freedAt: number | null;
}

/**
 * Product, then the license by key hash. `lock`: the license and activation rows stay locked
 * until the unit ends (activations of one license run one at a time); an unlocked read uses the
 * store's one-read `readClientLicense` when it has one, a locked one without `freeing` its
 * `readClientLicenseLocked`. `freeing`: the machine's revocation entry
 * is read along (`Found.freedAt`), for a call that may create its activation.
 */
export async function find(ctx: EngineContext, tx: StoreTx, productId: string, keyHash: string, fingerprint: string, lock = true, freeing = false): Promise<Found> {
  if (!lock && tx.readClientLicense) return checkFound(ctx, productId, await tx.readClientLicense({ productId, keyHash, fingerprint }));
  if (lock && !freeing && tx.readClientLicenseLocked) return checkFound(ctx, productId, await tx.readClientLicenseLocked({ productId, keyHash, fingerprint }));
  // The license first (locked: its row orders concurrent activations), then the rest together
  // (the MySQL store reads them in one round trip), refused in the order of `checkFound`. The
  // activation is read without a lock: every change to a license's activations also updates the
  // license (its count), so under the license's lock none can change, and a locking read of a
  // missing activation would lock an index gap that concurrent activations of other licenses
  // insert into (each holding the gap the other needs: a deadlock, measured at 3% of activations).
  const license = await tx.findOne('licenses', { keyHash }, { lock });
  const ours = license !== null && license.productId === productId;
  const [product, plan, account, activation, signingKey, entry] = await Promise.all([
    tx.get('products', productId),
    ours ? tx.get('plans', license.planId) : null,
    ours ? tx.get('accounts', license.accountId) : null,
    ours ? tx.findOne('activations', { licenseId: license.id, fingerprint }) : null,
    tx.findOne('signingKeys', { productId, status: 'active' }),
    ours && freeing ? tx.get('revocationEntries', revocationEntryId(license.id, fingerprint)) : null,
  ]);
  const found = checkFound(ctx, productId, { product, license, plan, account, activation: plan && account ? activation : null, signingKey });
  return { ...found, freedAt: entry?.freedAt ?? null };
}

/** The refusals of `find`, in its order: unknown product, unknown key, missing plan or account, deleted account. */
export function checkFound(ctx: EngineContext, productId: string, r: ClientLicenseRecords): Found {
  const { product, license, plan, account, activation } = r;
  if (!product) throw new LicensingError('unknown_product', `no product ${productId}`);
  if (!license || license.productId !== product.id) throw new LicensingError('unknown_key', 'no license with this key for this product');
  if (!plan) throw new LicensingError('internal_error', `license ${license.id} refers to a missing plan`);
  if (!account) throw new LicensingError('not_found', `account ${license.accountId} not found`);
  // Thirty days after closure the account's data counts as deleted (spec: "All data deleted").
  if (account.status === 'closed' && (!account.closedAt || ctx.clock.now() >= timestampMs(addDays(account.closedAt, CLOSURE_DAYS)))) {
    throw new LicensingError('unknown_product', `no product ${productId}`);
  }
  return { product, license, plan, account, activation, signingKey: r.signingKey, freedAt: null };
}

/** Refuses a license that may not be used now: its status, or past `validUntil`. */
export function assertUsable(ctx: EngineContext, { license, product }: Found): void {
  const refusal = REFUSALS[license.status];
  if (refusal || !isUsableStatus(license.status)) throw new LicensingError(refusal ?? 'license_expired', `the license is ${license.status}`);
  const validUntil = validUntilOf(license, product);
  if (validUntil !== null && ctx.clock.now() >= timestampMs(validUntil)) {
    throw new LicensingError('license_expired', `the license expired at ${validUntil}`);
  }
}
