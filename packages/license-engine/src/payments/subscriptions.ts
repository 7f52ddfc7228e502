import type { SubscriptionChangedCommand, SubscriptionPaidCommand } from '../_internal/commands.js';
import { LicensingError } from '../_internal/errors.js';
import type { LicenseStatus } from '@svc-licensing/cert-format';
import type { CounterRecord, CustomerRecord, LicenseRecord, PlanRecord, Timestamp } from '../_internal/records.js';
import { StoreConflictError } from '../_internal/store.js';
import { validUntilOf } from '../_internal/effective.js';
import { insertLicense } from '../_internal/new-license.js';
import { saveLicense, withStatus } from '../_internal/status.js';
import { reseatOnPlanChange } from '../_internal/plan-change-seats.js';
import { parseTimestampInput, timestampMs, toTimestamp } from '../_internal/time.js';
import { resolveCustomer } from './customers.js';
import { subscriptionMarkerId } from './prefetch.js';
import type { PaymentApplied } from './result.js';
import type { PaymentScope } from './scope.js';
import { ignored, keyEmailFor, licenseOfSubscription, mappedPlan, processed, quantityOf, senderDomainOnce } from './scope.js';
import { requireString } from '../_internal/validate.js';

const STATUSES = ['active', 'past_due', 'canceled', 'suspended', 'expired'] as const;

/** True when the event is not newer than the last one applied to the license (rule 1). */
const isStale = (s: PaymentScope, license: LicenseRecord) => license.lastEventKey !== null && s.key <= license.lastEventKey;

/**
 * The license moved onto another plan in place: key and machines stay, the new terms (entitlements,
 * machines per seat, major-version limit) apply at the next certificate (webhook rule 3). Only the
 * per-license activation override is kept; a `maxMajor` set on the license belonged to the old plan.
 */
function onPlan(license: LicenseRecord, plan: PlanRecord | null): LicenseRecord {
  return plan === null || plan.id === license.planId ? license : { ...license, planId: plan.id, planCode: plan.code, maxMajorOverride: null };
}

/**
 * A subscription payment: paidUntil to the period end, seats to the quantity, plan to the mapped
 * price, status `active`. An older payment (rule 2) may only extend paidUntil. A revoked license
 * refuses it with `conflict` (rule 3).
 */
export async function onSubscriptionPaid(s: PaymentScope, cmd: SubscriptionPaidCommand): Promise<PaymentApplied> {
  const subscriptionId = requireString(cmd.subscriptionId, 'subscriptionId', 200);
  const paidUntil = parseTimestampInput(cmd.paidUntil, 'paidUntil');
  const quantity = quantityOf(cmd.quantity);
  const plan = cmd.priceId === null ? null : await mappedPlan(s, requireString(cmd.priceId, 'priceId', 200));
  if (cmd.priceId !== null && plan === null) return ignored(`price ${cmd.priceId} is not in the price map`);
  const license = await licenseOfSubscription(s, subscriptionId);
  if (!license) {
    if (plan === null) return ignored(`no license follows subscription ${subscriptionId} and the event names no price`);
    const customer = await resolveCustomer(s, cmd.customer, undefined, s.prefetched.customer);
    return subscriptionLicense(s, { customer, plan, subscriptionId, orderId: cmd.orderId, status: 'active', paidUntil, seats: quantity ?? 1 });
  }
  if (license.status === 'revoked') throw new LicensingError('conflict', `license ${license.id} is revoked; the payment changes nothing`);
  if (isStale(s, license)) {
    if (license.paidUntil !== null && paidUntil <= license.paidUntil) return ignored('older payment: the paid period is already longer', license.id);
    await saveLicense(s.ctx, s.tx, license, { ...license, paidUntil }, s.integration.provider, s.account);
    return processed('older payment: paid period extended; plan, seats and status kept', license.id);
  }
  const next = await reseatOnPlanChange(s.ctx, s.tx, license, {
    ...withStatus(onPlan(license, plan), 'active'),
    paidUntil,
    seats: quantity ?? license.seats,
    lastEventKey: s.key,
  }, s.account);
  await saveLicense(s.ctx, s.tx, license, next, s.integration.provider, s.account);
  return processed(`payment applied; paid until ${paidUntil}`, license.id);
}

/**
 * A subscription status event: the status follows the subscription; a mapped price moves the plan,
 * an unmapped or absent one keeps it; dates stay. An event not newer than the last applied one is
 * ignored as stale (rule 1). Creates the license only when the event carries a period end.
 */
export async function onSubscriptionChanged(s: PaymentScope, cmd: SubscriptionChangedCommand): Promise<PaymentApplied> {
  const subscriptionId = requireString(cmd.subscriptionId, 'subscriptionId', 200);
  if (!STATUSES.includes(cmd.status)) throw new LicensingError('invalid_request', `unknown subscription status ${String(cmd.status)}`);
  const quantity = quantityOf(cmd.quantity);
  const plan = cmd.priceId === null ? null : await mappedPlan(s, requireString(cmd.priceId, 'priceId', 200));
  const license = await licenseOfSubscription(s, subscriptionId);
  if (!license) {
    if (cmd.currentPeriodEnd === null) return ignored(`no license follows subscription ${subscriptionId}`);
    if (plan === null) return ignored(`price ${String(cmd.priceId)} is not in the price map`);
    const paidUntil = parseTimestampInput(cmd.currentPeriodEnd, 'currentPeriodEnd');
    const customer = await resolveCustomer(s, cmd.customer, undefined, s.prefetched.customer);
    return subscriptionLicense(s, { customer, plan, subscriptionId, orderId: null, status: cmd.status, paidUntil, seats: quantity ?? 1 });
  }
  if (license.status === 'revoked') return ignored('the license is revoked and stays revoked', license.id);
  if (isStale(s, license)) return ignored('stale event: not newer than the last event applied to the license', license.id);
  const next = await reseatOnPlanChange(s.ctx, s.tx, license, {
    ...withStatus(onPlan(license, plan), cmd.status),
    seats: quantity ?? license.seats,
    lastEventKey: s.key,
  }, s.account);
  await saveLicense(s.ctx, s.tx, license, next, s.integration.provider, s.account);
  const kept = cmd.priceId !== null && plan === null ? `; price ${cmd.priceId} is not mapped, plan kept` : '';
  return processed(`status ${next.status}${kept}`, license.id);
}

/**
 * A license for a new subscription: the customer's earlier, ended subscription license of the same
 * plan is reused (same key and machines) when there is one, else a new license is created. Either way
 * the key e-mail is reserved (unless the account is closed). The subscription is claimed first
 * ({@link claimSubscription}); the customer's licenses are read without a lock and only the one
 * reused is locked (by its ID, then checked again), so no index gap is locked.
 */
export async function subscriptionLicense(
  s: PaymentScope,
  input: { customer: CustomerRecord; plan: PlanRecord; subscriptionId: string; orderId: string | null; status: LicenseStatus; paidUntil: Timestamp; seats: number },
): Promise<PaymentApplied> {
  const [licenses] = await Promise.all([
    s.tx.findMany('licenses', { customerId: input.customer.id, planId: input.plan.id }),
    s.account.status === 'open' ? senderDomainOnce(s) : null,
    claimSubscription(s, input.subscriptionId),
  ]);
  const reusable = (l: LicenseRecord) =>
    l.customerId === input.customer.id && l.planId === input.plan.id && l.subscriptionId !== null && l.status !== 'revoked' && subscriptionEnded(s, l);
  let previous: LicenseRecord | null = null;
  for (const candidate of licenses.filter(reusable)) {
    const locked = await s.tx.get('licenses', candidate.id, { lock: true });
    if (locked && reusable(locked)) {
      previous = locked;
      break;
    }
  }
  if (previous) {
    const next: LicenseRecord = {
      ...withStatus(previous, input.status),
      subscriptionId: input.subscriptionId,
      integrationId: s.integration.id,
      provider: s.integration.provider,
      paidUntil: input.paidUntil,
      seats: input.seats,
      lastEventKey: s.key,
    };
    await saveLicense(s.ctx, s.tx, previous, next, s.integration.provider, s.account);
    // The customer paid again and expects the key: e-mailed again (a send in progress is `key_email_in_progress`).
    return processed(`subscription ${input.subscriptionId} reuses the customer's license`, previous.id, await keyEmailFor(s, next, input.plan));
  }
  const { license, key } = await insertLicense(s.ctx, s.tx, {
    product: s.product,
    plan: input.plan,
    customer: input.customer,
    status: input.status,
    paidUntil: input.paidUntil,
    seats: input.seats,
    locale: s.account.defaultLocale,
    provider: s.integration.provider,
    integrationId: s.integration.id,
    subscriptionId: input.subscriptionId,
    orderId: input.orderId,
    lastEventKey: s.key,
    account: s.account,
  });
  return processed(`license created for subscription ${input.subscriptionId}`, license.id, await keyEmailFor(s, license, input.plan, key));
}

/** How long a subscription claim is kept: only units of work running when its license was committed need it. */
const SUBSCRIPTION_CLAIM_MS = 86_400_000;

/**
 * Claims the subscription for this unit of work before a license starts following it, so that two
 * events of one new subscription processed at once (its `transaction.completed` and its
 * `subscription.activated`) cannot both create a license: neither's unlocked read finds one. The
 * claim is a marker in `counters` (`sub_` + 40 hex of SHA-256 of product and subscription). When
 * this unit's reads saw no marker it is inserted, held for the commit: a concurrent claim's marker
 * makes it clash there (after waiting for the other unit), and `transact` runs the unit again,
 * whose fresh read finds the other's license. A marker this unit saw is left from a license that
 * follows another subscription since (or was purged): it is locked by its ID and taken over, unless
 * its count moved since this unit's read (another unit took it over meanwhile: the unit runs again).
 */
async function claimSubscription(s: PaymentScope, subscriptionId: string): Promise<void> {
  const id = subscriptionMarkerId(s.product.id, subscriptionId);
  const expiresAt = toTimestamp(s.ctx.clock.now() + SUBSCRIPTION_CLAIM_MS);
  const known = s.prefetched.subscription;
  const seen: CounterRecord | null = known?.id === subscriptionId ? known.marker : await s.tx.get('counters', id);
  if (seen === null) return s.tx.insert('counters', { id, accountId: s.account.id, count: 1, expiresAt }, { defer: true });
  const marker = await s.tx.get('counters', id, { lock: true });
  if (marker === null || marker.count !== seen.count) throw new StoreConflictError('counters', 'id');
  await s.tx.update('counters', { ...marker, count: marker.count + 1, expiresAt }, { defer: true });
}

/** An earlier subscription is over: expired or canceled, or its paid period plus grace has passed. */
function subscriptionEnded(s: PaymentScope, license: LicenseRecord): boolean {
  if (license.status === 'expired' || license.status === 'canceled') return true;
  const validUntil = validUntilOf(license, s.product);
  return validUntil !== null && timestampMs(validUntil) <= s.ctx.clock.now();
}
