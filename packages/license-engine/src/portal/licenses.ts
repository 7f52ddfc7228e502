import { LicensingError } from '../_internal/errors.js';
import type { AccountRecord, ActivationRecord, LicenseRecord, SeatMode, Timestamp } from '../_internal/records.js';
import { isFloating, seatModeOf } from '../_internal/plan-seats.js';
import { leaseCounts } from '../_internal/lease.js';
import type { StoreTx } from '../_internal/store.js';
import { audit } from '../_internal/audit.js';
import { freeActivation } from '../_internal/free-activation.js';
import type { EngineContext } from '../_internal/context.js';
import { now, transact } from '../_internal/context.js';
import { activationLimitOf, validUntilOf } from '../_internal/effective.js';
import { timestampMs } from '../_internal/time.js';
import type { ActivationView } from '../_internal/views.js';
import { activationView } from '../_internal/record-views.js';
import { hasServicePortal } from '../_internal/account.js';
import { openLicenseKey } from '../_internal/sealed.js';
import { reserveKeyEmailIn } from '../mail/key-email.js';

/**
 * Machines a customer may free per license in 30 days when the vendor set nothing (docs/decisions.md).
 *
 * @example
 * ```ts
 * PORTAL_RELEASES_DEFAULT; // 3
 * ```
 */
export const PORTAL_RELEASES_DEFAULT = 3;
/** The window of the release bound, in days. */
export const PORTAL_RELEASE_WINDOW_DAYS = 30;

/** A license as its customer sees it in the portal (no key: revealed on request). */
export interface PortalLicenseView {
  id: string;
  product: { id: string; name: string };
  plan: { code: string; name: string };
  status: LicenseRecord['status'];
  validUntil: Timestamp | null;
  seats: number;
  activationLimit: number;
  activationCount: number;
  /** The plan's seat mode. */
  seatMode: SeatMode;
  /** Floating plans: machines holding a live lease now; null on machine plans. */
  liveLeases: number | null;
  /** Floating plans: machines holding a borrow now; null on machine plans. */
  borrowedLeases: number | null;
}

/**
 * A machine as its customer sees it in the portal: never its fingerprint, which with the license key
 * would free it through the client API's deactivate without counting against the release bound
 * (the machine itself knows its fingerprint, and may always free itself).
 */
export type PortalActivationView = Omit<ActivationView, 'fingerprint'>;

/** The portal's license detail: the license, its machines, and how many more it may free this month. */
export interface PortalLicenseDetail extends PortalLicenseView {
  activations: PortalActivationView[];
  /** Releases left in the current 30-day window. */
  releasesLeft: number;
  releaseLimit: number;
}

/** Who is asking: a signed-in customer (account and address). */
export interface PortalCustomer {
  accountId: string;
  email: string;
}

/** The portal's customer as an audit event's actor. */
const customerActor = (who: PortalCustomer) => ({ kind: 'customer' as const, email: who.email, apiKeyId: null });

/** The release bound of an account (its setting, or the default). */
export function releaseLimitOf(account: AccountRecord): number {
  return account.portalReleaseLimit ?? PORTAL_RELEASES_DEFAULT;
}

async function portalAccountOf(tx: StoreTx, accountId: string): Promise<AccountRecord> {
  const account = await tx.get('accounts', accountId);
  if (!hasServicePortal(account)) throw new LicensingError('not_found', 'this account has no customer portal here');
  return account;
}

/** The customer's license, or `not_found` (another customer's or another account's looks the same as none). */
async function customerLicense(tx: StoreTx, who: PortalCustomer, licenseId: unknown, lock = false): Promise<LicenseRecord> {
  const license = typeof licenseId === 'string' && licenseId !== '' ? await tx.get('licenses', licenseId, { lock }) : null;
  if (!license || license.accountId !== who.accountId || license.customerEmail !== who.email) {
    throw new LicensingError('not_found', `license ${String(licenseId)} not found`);
  }
  return license;
}

async function portalView(tx: StoreTx, license: LicenseRecord, nowMs: number, read?: ActivationRecord[]): Promise<PortalLicenseView> {
  const [plan, product] = await Promise.all([tx.get('plans', license.planId), tx.get('products', license.productId)]);
  if (!plan || !product) throw new LicensingError('internal_error', `license ${license.id} refers to a missing plan or product`);
  const floating = isFloating(plan);
  const leases = floating ? leaseCounts(read ?? (await tx.findMany('activations', { licenseId: license.id })), nowMs) : null;
  return {
    id: license.id,
    product: { id: product.id, name: product.name },
    plan: { code: plan.code, name: plan.name },
    status: license.status,
    validUntil: validUntilOf(license, product),
    seats: license.seats,
    activationLimit: activationLimitOf(license, plan),
    activationCount: license.activationCount,
    seatMode: seatModeOf(plan),
    liveLeases: leases === null ? null : leases.live,
    borrowedLeases: leases === null ? null : leases.borrowed,
  };
}

/** Portal releases of a license within the last 30 days (from the audit log: `activation.deleted` with source `portal`). */
async function recentReleases(ctx: EngineContext, tx: StoreTx, licenseId: string, lock = false): Promise<number> {
  const since = ctx.clock.now() - PORTAL_RELEASE_WINDOW_DAYS * 86_400_000;
  // A locking read sees the latest committed releases (a plain read may see the unit's older snapshot).
  const events = await tx.findMany('auditEvents', { licenseId }, { lock });
  return events.filter((e) => e.type === 'activation.deleted' && (e.data as { source?: unknown }).source === 'portal' && timestampMs(e.createdAt) > since).length;
}

function portalActivationView(activation: ActivationRecord, nowMs: number): PortalActivationView {
  const { fingerprint: _fingerprint, ...rest } = activationView(activation, nowMs);
  return rest;
}

/** The customer's licenses of the account, newest first. */
export async function listPortalLicenses(ctx: EngineContext, who: PortalCustomer): Promise<{ data: PortalLicenseView[] }> {
  return transact(ctx, async (tx) => {
    await portalAccountOf(tx, who.accountId);
    const licenses = (await tx.findMany('licenses', { customerEmail: who.email })).filter((l) => l.accountId === who.accountId);
    licenses.sort((a, b) => (a.id < b.id ? 1 : -1));
    const nowMs = ctx.clock.now();
    return { data: await Promise.all(licenses.map((l) => portalView(tx, l, nowMs))) };
  }, { readOnly: true });
}

/** One license of the customer with its machines and the release budget left. */
export async function getPortalLicense(ctx: EngineContext, who: PortalCustomer, licenseId: string): Promise<PortalLicenseDetail> {
  return transact(ctx, async (tx) => {
    const account = await portalAccountOf(tx, who.accountId);
    const license = await customerLicense(tx, who, licenseId);
    const activations = await tx.findMany('activations', { licenseId: license.id });
    activations.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
    const releaseLimit = releaseLimitOf(account);
    const used = await recentReleases(ctx, tx, license.id);
    const nowMs = ctx.clock.now();
    return {
      ...(await portalView(tx, license, nowMs, activations)),
      activations: activations.map((a) => portalActivationView(a, nowMs)),
      releasesLeft: Math.max(0, releaseLimit - used),
      releaseLimit,
    };
  }, { readOnly: true });
}

/** The license key of the customer's license (the portal's "reveal"). */
export async function revealPortalKey(ctx: EngineContext, who: PortalCustomer, licenseId: string): Promise<{ id: string; key: string }> {
  return transact(ctx, async (tx) => {
    const account = await portalAccountOf(tx, who.accountId);
    const license = await customerLicense(tx, who, licenseId);
    // Audited (the vendor sees which customer revealed which key, and when); the key itself never is.
    await audit(ctx, tx, { accountId: who.accountId, type: 'portal.key_revealed', licenseId: license.id, data: { email: who.email }, actor: customerActor(who), account });
    return { id: license.id, key: openLicenseKey(ctx, license) };
  });
}

/**
 * Key e-mails a customer may ask the portal to send again, per license and clock hour. They are
 * counted apart from the account's hourly budget of key e-mails, so a customer's resends never
 * make the vendor's own sends or a purchase's key e-mail `rate_limited`.
 *
 * @example
 * ```ts
 * PORTAL_KEY_EMAILS_PER_HOUR; // 3
 * ```
 */
export const PORTAL_KEY_EMAILS_PER_HOUR = 3;

/**
 * The portal's "e-mail me the key again": reserves the license's key e-mail against its own
 * per-license budget (`PORTAL_KEY_EMAILS_PER_HOUR`, `rate_limited` beyond), never the account's.
 * `not_found` for another customer's license, `conflict` for a revoked one, `key_email_in_progress`
 * while one is being sent. The host sends it (`getKeyEmail`) and releases it (`releaseKeyEmail`).
 */
export async function reservePortalKeyEmail(ctx: EngineContext, who: PortalCustomer, licenseId: string): Promise<{ id: string }> {
  return transact(ctx, async (tx) => {
    const account = await portalAccountOf(tx, who.accountId);
    const license = await customerLicense(tx, who, licenseId, true);
    if (license.status === 'revoked') throw new LicensingError('conflict', 'the license is revoked');
    const budget = { name: `portal-keymail:${license.id}`, limit: PORTAL_KEY_EMAILS_PER_HOUR, what: 'key e-mails of this license from the portal' };
    await reserveKeyEmailIn(ctx, tx, license, account, budget);
    return { id: license.id };
  });
}

/** Checks that the license is the customer's (before the key e-mail is sent again); `not_found` otherwise. */
export async function checkPortalLicense(ctx: EngineContext, who: PortalCustomer, licenseId: string): Promise<{ id: string }> {
  return transact(ctx, async (tx) => {
    await portalAccountOf(tx, who.accountId);
    return { id: (await customerLicense(tx, who, licenseId)).id };
  }, { readOnly: true });
}

/**
 * Frees one of the customer's machines: the seat is free at once and the machine's next online
 * check is `not_activated`. Bounded per license by the account's `portalReleaseLimit` per 30 days
 * (`release_limit` beyond it, nothing written); audited as `activation.deleted` with source `portal`.
 */
export async function releasePortalActivation(
  ctx: EngineContext,
  who: PortalCustomer,
  activationId: string,
): Promise<{ released: true; license: string; releasesLeft: number }> {
  return transact(ctx, async (tx) => {
    const account = await portalAccountOf(tx, who.accountId);
    // Another customer's machine, another account's and none at all get the same answer.
    const notFound = () => new LicensingError('not_found', `activation ${String(activationId)} not found`);
    const found = typeof activationId === 'string' && activationId !== '' ? await tx.get('activations', activationId) : null;
    if (!found || found.accountId !== who.accountId) throw notFound();
    // The license row is locked first: releases of one license run one at a time, so the bound holds under races.
    const license = await customerLicense(tx, who, found.licenseId, true).catch((error: unknown) => {
      throw error instanceof LicensingError && error.code === 'not_found' ? notFound() : error;
    });
    const activation = await tx.get('activations', activationId, { lock: true });
    if (!activation) throw notFound();
    const limit = releaseLimitOf(account);
    const used = await recentReleases(ctx, tx, license.id, true);
    if (used >= limit) {
      const contact = account.replyTo ?? account.senderEmail ?? account.ownerEmail;
      throw new LicensingError(
        'release_limit',
        `This license has already freed ${used} machine(s) in the last ${PORTAL_RELEASE_WINDOW_DAYS} days, the most allowed here. ` +
          `To free another one now, contact ${account.senderName ?? account.name} at ${contact}.`,
      );
    }
    await freeActivation(ctx, tx, { license, activation, account, source: 'portal', actor: customerActor(who) });
    return { released: true as const, license: license.id, releasesLeft: Math.max(0, limit - used - 1) };
  });
}
