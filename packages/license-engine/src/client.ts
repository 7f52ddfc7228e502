import { isUsableStatus, isWellFormedLicenseKey } from '@svc-licensing/cert-format';
import type { LicenseStatus } from '@svc-licensing/cert-format';
import { LicensingError } from './errors.js';
import type { LicensingErrorCode } from './errors.js';
import type { AccountRecord, ActivationRecord, LicenseRecord, PlanRecord, ProductRecord, SigningKeyRecord } from './records.js';
import type { ClientLicenseRecords, StoreTx } from './store.js';
import { CLOSURE_DAYS } from './accounts.js';
import { audit } from './audit.js';
import { prepareCertificate, signCertificateOf } from './certificates.js';
import type { UnsignedCertificate } from './certificates.js';
import type { EngineContext } from './_internal/context.js';
import { now, readMostly, transact } from './_internal/context.js';
import { activationLimitOf, validUntilOf } from './_internal/effective.js';
import { licenseKeyHash } from './_internal/hash.js';
import { addDays, timestampMs } from './_internal/time.js';
import { asObject, invalid, optionalString } from './_internal/validate.js';

export interface ActivateInput {
  product: string;
  key: string;
  /** 64 lowercase hex characters (`machineFingerprint`). */
  fingerprint: string;
  name?: string;
  platform?: string;
  appVersion?: string;
}

export type ValidateInput = Omit<ActivateInput, 'name'>;
export type DeactivateInput = Pick<ActivateInput, 'product' | 'key' | 'fingerprint'>;

const FINGERPRINT = /^[0-9a-f]{64}$/;

const REFUSALS: Partial<Record<LicenseStatus, LicensingErrorCode>> = {
  suspended: 'license_suspended',
  refunded: 'license_refunded',
  revoked: 'license_revoked',
  expired: 'license_expired',
};

function parse(input: unknown, withName: boolean) {
  const body = asObject(input);
  if (typeof body.product !== 'string' || body.product === '' || body.product.length > 100) invalid('product must be a product ID');
  if (typeof body.key !== 'string' || !isWellFormedLicenseKey(body.key)) invalid('key is not a well-formed license key');
  if (typeof body.fingerprint !== 'string' || !FINGERPRINT.test(body.fingerprint)) invalid('fingerprint must be 64 lowercase hex characters');
  return {
    product: body.product,
    keyHash: licenseKeyHash(body.key),
    fingerprint: body.fingerprint,
    name: withName ? optionalString(body.name, 'name', 200) : null,
    platform: optionalString(body.platform, 'platform', 100),
    appVersion: optionalString(body.appVersion, 'appVersion', 100),
  };
}

interface Found {
  product: ProductRecord;
  license: LicenseRecord;
  plan: PlanRecord;
  account: AccountRecord;
  activation: ActivationRecord | null;
  /** The product's active signing key (the lowest id if several), read along. */
  signingKey: SigningKeyRecord | null;
}

/**
 * Product, then the license by key hash. `lock`: the license and activation rows stay locked
 * until the unit ends (activations of one license run one at a time); an unlocked read uses the
 * store's one-read `readClientLicense` when it has one.
 */
async function find(ctx: EngineContext, tx: StoreTx, productId: string, keyHash: string, fingerprint: string, lock = true): Promise<Found> {
  if (!lock && tx.readClientLicense) return checkFound(ctx, productId, await tx.readClientLicense({ productId, keyHash, fingerprint }));
  // The license first (locked: its row orders concurrent activations), then the rest together
  // (the MySQL store reads them in one round trip), refused in the order of `checkFound`. The
  // activation is read without a lock: every change to a license's activations also updates the
  // license (its count), so under the license's lock none can change, and a locking read of a
  // missing activation would lock an index gap that concurrent activations of other licenses
  // insert into (each holding the gap the other needs: a deadlock, measured at 3% of activations).
  const license = await tx.findOne('licenses', { keyHash }, { lock });
  const ours = license !== null && license.productId === productId;
  const [product, plan, account, activation, signingKey] = await Promise.all([
    tx.get('products', productId),
    ours ? tx.get('plans', license.planId) : null,
    ours ? tx.get('accounts', license.accountId) : null,
    ours ? tx.findOne('activations', { licenseId: license.id, fingerprint }) : null,
    tx.findOne('signingKeys', { productId, status: 'active' }),
  ]);
  return checkFound(ctx, productId, { product, license, plan, account, activation: plan && account ? activation : null, signingKey });
}

/** The refusals of `find`, in its order: unknown product, unknown key, missing plan or account, deleted account. */
function checkFound(ctx: EngineContext, productId: string, r: ClientLicenseRecords): Found {
  const { product, license, plan, account, activation } = r;
  if (!product) throw new LicensingError('unknown_product', `no product ${productId}`);
  if (!license || license.productId !== product.id) throw new LicensingError('unknown_key', 'no license with this key for this product');
  if (!plan) throw new LicensingError('internal_error', `license ${license.id} refers to a missing plan`);
  if (!account) throw new LicensingError('not_found', `account ${license.accountId} not found`);
  // Thirty days after closure the account's data counts as deleted (spec: "All data deleted").
  if (account.status === 'closed' && (!account.closedAt || ctx.clock.now() >= timestampMs(addDays(account.closedAt, CLOSURE_DAYS)))) {
    throw new LicensingError('unknown_product', `no product ${productId}`);
  }
  return { product, license, plan, account, activation, signingKey: r.signingKey };
}

/** Refuses a license that may not be used now: its status, or past `validUntil`. */
function assertUsable(ctx: EngineContext, { license, product }: Found): void {
  const refusal = REFUSALS[license.status];
  if (refusal || !isUsableStatus(license.status)) throw new LicensingError(refusal ?? 'license_expired', `the license is ${license.status}`);
  const validUntil = validUntilOf(license, product);
  if (validUntil !== null && ctx.clock.now() >= timestampMs(validUntil)) {
    throw new LicensingError('license_expired', `the license expired at ${validUntil}`);
  }
}


/**
 * `POST /licenses/activate`. Idempotent for a known fingerprint (refreshes it, no extra seat).
 * A new machine beyond the activation limit is `activation_limit`; in a closed account `account_closed`.
 */
export async function activate(ctx: EngineContext, input: ActivateInput): Promise<{ certificate: string; activation: string }> {
  return activateParsed(ctx, parse(input, true), 'client');
}

/** What an activation needs once its input is checked: the license is found by its key hash. */
export interface ParsedActivation {
  product: string;
  keyHash: string;
  fingerprint: string;
  name: string | null;
  platform: string | null;
  appVersion: string | null;
}

/**
 * The one activation: `POST /licenses/activate` and the offline activation by request run it with the
 * same rules and limits. `accountId`, when given, scopes the product and license to that account
 * (another account's are `unknown_product` / `unknown_key`, as if they did not exist); `check` may
 * refuse the license found (e.g. it is not the signed-in customer's) before anything is written.
 */
export async function activateParsed(
  ctx: EngineContext,
  req: ParsedActivation,
  source: 'client' | 'offline',
  scope: { accountId?: string; check?: (license: LicenseRecord) => void } = {},
): Promise<{ certificate: string; activation: string }> {
  const decided = await transact(ctx, async (tx) => {
    const found = await find(ctx, tx, req.product, req.keyHash, req.fingerprint);
    if (scope.accountId !== undefined && found.product.accountId !== scope.accountId) {
      throw new LicensingError('unknown_product', `no product ${req.product}`);
    }
    scope.check?.(found.license);
    assertUsable(ctx, found);
    const { license, plan, product, account } = found;
    const at = now(ctx);
    let activation = found.activation;
    if (activation) {
      activation = {
        ...activation,
        lastSeenAt: at,
        name: req.name ?? activation.name,
        platform: req.platform ?? activation.platform,
        appVersion: req.appVersion ?? activation.appVersion,
      };
      // Held for the commit where the store can: the activation is locked, so it matches.
      await tx.update('activations', activation, { defer: true });
    } else {
      if (account.status === 'closed') throw new LicensingError('account_closed', 'the vendor account is closed: no new activations');
      const limit = activationLimitOf(license, plan);
      if (license.activationCount >= limit) throw new LicensingError('activation_limit', `all ${limit} activation(s) of this license are in use`);
      activation = {
        id: ctx.ids.next('act'),
        accountId: license.accountId,
        licenseId: license.id,
        fingerprint: req.fingerprint,
        name: req.name,
        platform: req.platform,
        appVersion: req.appVersion,
        createdAt: at,
        lastSeenAt: at,
      };
      // Held for the commit where the store can: the license row is locked, and a clash on the
      // machine (impossible under that lock) would fail the unit, which `transact` runs again.
      await tx.insert('activations', activation, { defer: true });
      await tx.update('licenses', { ...license, activationCount: license.activationCount + 1, updatedAt: at }, { defer: true });
      await audit(ctx, tx, {
        accountId: license.accountId,
        type: 'activation.created',
        licenseId: license.id,
        data: { activation: activation.id, fingerprint: req.fingerprint, ...(source === 'offline' ? { source } : {}) },
      });
    }
    const unsigned = await prepareCertificate(ctx, tx, { license, plan, product, fingerprint: req.fingerprint, signingKey: found.signingKey });
    return { unsigned, activation: activation.id };
  });
  return { certificate: await signCertificateOf(decided.unsigned), activation: decided.activation };
}

/**
 * How far `lastSeenAt` may lag behind the last validate: validate writes the activation only when
 * `lastSeenAt` would move by more than this (or the platform or app version changed), so most
 * validates only read. Activate always refreshes it.
 *
 * @example
 * ```ts
 * LAST_SEEN_RESOLUTION_MS; // 60000
 * ```
 */
export const LAST_SEEN_RESOLUTION_MS = 60_000;

/**
 * `POST /licenses/validate`: `not_activated` without an activation; records `lastSeenAt` to within
 * `LAST_SEEN_RESOLUTION_MS`.
 */
export async function validate(ctx: EngineContext, input: ValidateInput): Promise<{ certificate: string }> {
  const req = parse(input, false);
  // Most validates write nothing: they read without locks in a read-only unit. Only when
  // lastSeenAt (or the platform or app version) must be written does it run again, locked.
  const unsigned = await readMostly(ctx, (tx, write) => validateIn(ctx, tx, req, write));
  return { certificate: await signCertificateOf(unsigned) };
}

/** One validate in `tx`; without `write`, undefined when the activation needs writing. */
async function validateIn(
  ctx: EngineContext,
  tx: StoreTx,
  req: ReturnType<typeof parse>,
  write: boolean,
): Promise<UnsignedCertificate | undefined> {
  const found = await find(ctx, tx, req.product, req.keyHash, req.fingerprint, write);
  assertUsable(ctx, found);
  const seen = found.activation;
  if (!seen) throw new LicensingError('not_activated', 'this machine is not activated on the license');
  const next = { ...seen, platform: req.platform ?? seen.platform, appVersion: req.appVersion ?? seen.appVersion };
  // Coalesced: the hottest path writes only when lastSeenAt moves by more than the resolution (or details change).
  const stale = ctx.clock.now() - timestampMs(seen.lastSeenAt) > LAST_SEEN_RESOLUTION_MS;
  if (stale || next.platform !== seen.platform || next.appVersion !== seen.appVersion) {
    if (!write) return undefined;
    await tx.update('activations', { ...next, lastSeenAt: now(ctx) }, { defer: true });
  }
  const { license, plan, product, signingKey } = found;
  return prepareCertificate(ctx, tx, { license, plan, product, fingerprint: req.fingerprint, signingKey });
}

/** `POST /licenses/deactivate`: frees the machine's seat, in any license status. */
export async function deactivate(ctx: EngineContext, input: DeactivateInput): Promise<{ deactivated: true }> {
  const req = parse(input, false);
  return transact(ctx, async (tx) => {
    const { license, activation } = await find(ctx, tx, req.product, req.keyHash, req.fingerprint);
    if (!activation) throw new LicensingError('not_activated', 'this machine is not activated on the license');
    await tx.delete('activations', activation.id, { defer: true });
    await tx.update('licenses', { ...license, activationCount: Math.max(0, license.activationCount - 1), updatedAt: now(ctx) }, { defer: true });
    await audit(ctx, tx, {
      accountId: license.accountId,
      type: 'activation.deleted',
      licenseId: license.id,
      data: { activation: activation.id, fingerprint: activation.fingerprint, source: 'client' },
    });
    return { deactivated: true as const };
  });
}
