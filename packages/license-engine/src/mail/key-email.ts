import { LicensingError } from '../_internal/errors.js';
import type { AccountRecord, LicenseRecord, Locale, PlanRecord, ProductRecord, SenderDomainRecord } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import { loadAccount } from '../_internal/account.js';
import type { EngineContext } from '../_internal/context.js';
import { owned, servicePlanOf, transact } from '../_internal/context.js';
import { spendHourlyBudget } from '../_internal/budget.js';
import { lockOrInsert } from '../_internal/claim.js';
import { createdLicenses } from '../_internal/new-license.js';
import { timestampMs, toTimestamp } from '../_internal/time.js';
import { senderDomainOf, verifiedSender, type DkimSigning } from './sender-domains.js';
import { openLicenseKey } from '../_internal/sealed.js';

/**
 * How long a key e-mail reservation holds when its sender never releases it.
 *
 * @example
 * ```ts
 * KEY_EMAIL_RESERVATION_MS; // 60000
 * ```
 */
export const KEY_EMAIL_RESERVATION_MS = 60_000;

/** Everything the host needs to e-mail a license key. */
export interface KeyEmail {
  licenseId: string;
  to: string;
  customerName: string;
  key: string;
  locale: Locale;
  product: { id: string; name: string };
  /** Name of the license's plan, for the e-mail's plan line. */
  planName: string;
  /**
   * The account's sender settings. While the account's sender domain is verified, `email` is the
   * address at that domain and `dkim` signs the message; otherwise `dkim` is null.
   */
  sender: { name: string | null; email: string | null; replyTo: string | null; dkim: DkimSigning | null };
  /** The account ID when its customer portal is the service-hosted one (the e-mail then links to it); else null. */
  portalAccountId: string | null;
  /** The vendor's own portal (`customerPortal` mode `custom`); null otherwise. */
  customPortalUrl: string | null;
}

/** An hourly budget a key e-mail is counted against instead of the account's (the portal's resends). */
export interface KeyEmailBudget {
  name: string;
  limit: number;
  what: string;
}

/**
 * Reserves one key e-mail for a license inside the caller's transaction: `key_email_in_progress`
 * while another unexpired reservation exists; `rate_limited` when the hourly budget is used up:
 * the service plan's for the account, or `budget` when given. Nothing is written when either is
 * thrown. `account` (the license's, when the caller has it already) saves a read.
 */
export async function reserveKeyEmailIn(
  ctx: EngineContext,
  tx: StoreTx,
  license: LicenseRecord,
  account?: AccountRecord,
  budget?: KeyEmailBudget,
): Promise<void> {
  const reservation = { id: license.id, accountId: license.accountId, expiresAt: toTimestamp(ctx.clock.now() + KEY_EMAIL_RESERVATION_MS) };
  // Inserted unless one exists (a throw below rolls the insert back with everything else); a
  // license created in this unit has none, so its insert is held for the commit.
  const held = createdLicenses.has(license)
    ? await tx.insert('emailReservations', reservation, { defer: true }).then(() => null)
    : await lockOrInsert(
        (lock) => tx.get('emailReservations', license.id, lock),
        () => tx.insert('emailReservations', reservation),
        { usuallyMissing: true }, // a reservation ends (is deleted) once its e-mail is sent
      );
  if (held && timestampMs(held.expiresAt) > ctx.clock.now()) {
    throw new LicensingError('key_email_in_progress', `a key e-mail for license ${license.id} is already being sent`);
  }
  if (budget) {
    await spendHourlyBudget(ctx, tx, budget.name, license.accountId, budget.limit, budget.what);
  } else {
    const perHour = servicePlanOf(ctx, (account ?? (await loadAccount(tx, license.accountId))).servicePlan).keyEmailsPerHour;
    await spendHourlyBudget(ctx, tx, `keymail:${license.accountId}`, license.accountId, perHour, 'license-key e-mails');
  }
  if (held) await tx.update('emailReservations', reservation);
}

/**
 * `POST /licenses/{id}/send-key`: reserves the e-mail and returns what to send. The host sends it,
 * then calls `releaseKeyEmail`. `conflict` for a revoked license; `account_closed` when closed.
 */
export async function reserveKeyEmail(ctx: EngineContext, accountId: string, licenseId: string): Promise<KeyEmail> {
  return transact(ctx, async (tx) => {
    const license = await owned(tx, 'licenses', accountId, licenseId, 'license', true);
    if (license.status === 'revoked') throw new LicensingError('conflict', 'the license is revoked');
    const account = await loadAccount(tx, accountId);
    if (account.status === 'closed') throw new LicensingError('account_closed', 'the account is closed: no key is e-mailed');
    await reserveKeyEmailIn(ctx, tx, license);
    return keyEmailOf(ctx, tx, license);
  });
}

/** What to send for a license whose e-mail is reserved (after `applyPaymentCommand` or `createLicense`). */
export async function getKeyEmail(ctx: EngineContext, licenseId: string): Promise<KeyEmail> {
  // Read-only: after every license-creating webhook; on MySQL autocommitted SELECTs, no COMMIT.
  return transact(
    ctx,
    async (tx) => {
      const license = await tx.get('licenses', licenseId);
      if (!license) throw new LicensingError('not_found', `license ${licenseId} not found`);
      return keyEmailOf(ctx, tx, license);
    },
    { readOnly: true },
  );
}

/**
 * Ends a reservation once the e-mail is sent or has failed, so the next send may run. While a
 * webhook's unit is running in this engine the release is written with its commit; otherwise in a
 * unit of its own, with the releases asked for meanwhile (see `createKeyEmailReleases`).
 */
export async function releaseKeyEmail(ctx: EngineContext, licenseId: string): Promise<void> {
  await ctx.keyEmailReleases.release(licenseId);
}

/** The unit of work that ends several reservations: held deletes, on MySQL one round trip with their COMMIT. */
export function releaseKeyEmailsUnit(ctx: EngineContext, licenseIds: readonly string[]): Promise<void> {
  return transact(ctx, async (tx) => {
    for (const id of new Set(licenseIds)) await tx.delete('emailReservations', id, { defer: true });
  });
}

async function keyEmailOf(ctx: EngineContext, tx: StoreTx, license: LicenseRecord): Promise<KeyEmail> {
  // Asked for together: the MySQL store reads them in one round trip.
  const [account, product, plan, domain] = await Promise.all([
    loadAccount(tx, license.accountId),
    tx.get('products', license.productId),
    tx.get('plans', license.planId),
    senderDomainOf(tx, license.accountId),
  ]);
  return buildKeyEmail(ctx, { license, account, product, plan, domain });
}

/**
 * The key e-mail of `license` from records the caller already holds (`key`: the clear key when the
 * caller just made it, else it is decrypted): a webhook's unit of work builds it before its commit,
 * so the host sends it without reading the license again.
 */
export function buildKeyEmail(
  ctx: EngineContext,
  records: { license: LicenseRecord; account: AccountRecord; product: ProductRecord | null; plan: PlanRecord | null; domain: SenderDomainRecord | null; key?: string },
): KeyEmail {
  const { license, account, product, plan, domain } = records;
  const verified = verifiedSender(ctx, domain, account);
  return {
    licenseId: license.id,
    to: license.customerEmail,
    customerName: license.customerName,
    key: records.key ?? openLicenseKey(ctx, license),
    locale: license.locale,
    product: { id: license.productId, name: product?.name ?? '' },
    planName: plan?.name ?? license.planCode,
    sender: {
      name: account.senderName,
      email: verified?.email ?? account.senderEmail,
      replyTo: account.replyTo,
      dkim: verified?.dkim ?? null,
    },
    portalAccountId: account.customerPortal.mode === 'svc' ? account.id : null,
    customPortalUrl: account.customerPortal.mode === 'custom' ? account.customerPortal.url : null,
  };
}
