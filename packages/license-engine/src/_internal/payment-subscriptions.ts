import type { SubscriptionChangedCommand, SubscriptionPaidCommand } from '../commands.js';
import { LicensingError } from '../errors.js';
import type { LicenseRecord, PlanRecord } from '../records.js';
import type { Outcome, PaymentScope } from './payment-scope.js';
import { ignored, licenseOfSubscription, mappedPlan, processed, quantityOf, resolveCustomer, subscriptionLicense } from './payment-scope.js';
import { saveLicense, withStatus } from './status.js';
import { parseTimestampInput } from './time.js';
import { requireString } from './validate.js';

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
export async function onSubscriptionPaid(s: PaymentScope, cmd: SubscriptionPaidCommand): Promise<Outcome> {
  const subscriptionId = requireString(cmd.subscriptionId, 'subscriptionId', 200);
  const paidUntil = parseTimestampInput(cmd.paidUntil, 'paidUntil');
  const quantity = quantityOf(cmd.quantity);
  const plan = cmd.priceId === null ? null : await mappedPlan(s, requireString(cmd.priceId, 'priceId', 200));
  if (cmd.priceId !== null && plan === null) return ignored(`price ${cmd.priceId} is not in the price map`);
  const license = await licenseOfSubscription(s, subscriptionId);
  if (!license) {
    if (plan === null) return ignored(`no license follows subscription ${subscriptionId} and the event names no price`);
    const customer = await resolveCustomer(s, cmd.customer);
    return subscriptionLicense(s, { customer, plan, subscriptionId, orderId: cmd.orderId, status: 'active', paidUntil, seats: quantity ?? 1 });
  }
  if (license.status === 'revoked') throw new LicensingError('conflict', `license ${license.id} is revoked; the payment changes nothing`);
  if (isStale(s, license)) {
    if (license.paidUntil !== null && paidUntil <= license.paidUntil) return ignored('older payment: the paid period is already longer', license.id);
    await saveLicense(s.ctx, s.tx, license, { ...license, paidUntil }, s.integration.provider);
    return processed('older payment: paid period extended; plan, seats and status kept', license.id);
  }
  const next: LicenseRecord = {
    ...withStatus(onPlan(license, plan), 'active'),
    paidUntil,
    seats: quantity ?? license.seats,
    lastEventKey: s.key,
  };
  await saveLicense(s.ctx, s.tx, license, next, s.integration.provider);
  return processed(`payment applied; paid until ${paidUntil}`, license.id);
}

/**
 * A subscription status event: the status follows the subscription; a mapped price moves the plan,
 * an unmapped or absent one keeps it; dates stay. An event not newer than the last applied one is
 * ignored as stale (rule 1). Creates the license only when the event carries a period end.
 */
export async function onSubscriptionChanged(s: PaymentScope, cmd: SubscriptionChangedCommand): Promise<Outcome> {
  const subscriptionId = requireString(cmd.subscriptionId, 'subscriptionId', 200);
  if (!STATUSES.includes(cmd.status)) throw new LicensingError('invalid_request', `unknown subscription status ${String(cmd.status)}`);
  const quantity = quantityOf(cmd.quantity);
  const plan = cmd.priceId === null ? null : await mappedPlan(s, requireString(cmd.priceId, 'priceId', 200));
  const license = await licenseOfSubscription(s, subscriptionId);
  if (!license) {
    if (cmd.currentPeriodEnd === null) return ignored(`no license follows subscription ${subscriptionId}`);
    if (plan === null) return ignored(`price ${String(cmd.priceId)} is not in the price map`);
    const paidUntil = parseTimestampInput(cmd.currentPeriodEnd, 'currentPeriodEnd');
    const customer = await resolveCustomer(s, cmd.customer);
    return subscriptionLicense(s, { customer, plan, subscriptionId, orderId: null, status: cmd.status, paidUntil, seats: quantity ?? 1 });
  }
  if (license.status === 'revoked') return ignored('the license is revoked and stays revoked', license.id);
  if (isStale(s, license)) return ignored('stale event: not newer than the last event applied to the license', license.id);
  const next: LicenseRecord = {
    ...withStatus(onPlan(license, plan), cmd.status),
    seats: quantity ?? license.seats,
    lastEventKey: s.key,
  };
  await saveLicense(s.ctx, s.tx, license, next, s.integration.provider);
  const kept = cmd.priceId !== null && plan === null ? `; price ${cmd.priceId} is not mapped, plan kept` : '';
  return processed(`status ${next.status}${kept}`, license.id);
}
