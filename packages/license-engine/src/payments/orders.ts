import type { ChargebackCommand, CustomerUpsertedCommand, PurchaseCompletedCommand, RefundedCommand } from '../_internal/commands.js';
import type { LicenseRecord } from '../_internal/records.js';
import { moveCustomer, upsertCustomer } from '../licenses/customers.js';
import { StoreConflictError } from '../_internal/store.js';
import { orderMarkerId } from './prefetch.js';
import { insertLicense } from '../_internal/new-license.js';
import { together } from '../_internal/together.js';
import type { PaymentApplied } from './result.js';
import type { CustomerScope, PaymentScope } from './scope.js';
import { ignored, keyEmailFor, licenseOfSubscription, mappedPlan, processed, quantityOf, senderDomainOnce } from './scope.js';
import { providerCustomerOf, rememberProviderCustomer, resolveCustomer } from './customers.js';
import { saveLicense, withStatus } from '../_internal/status.js';
import { toTimestamp } from '../_internal/time.js';
import { requireEmail, requireString } from '../_internal/validate.js';

/**
 * customer.created / customer.updated: creates or updates the customer linked to the provider customer
 * ID (webhook rule 7). A changed e-mail moves that customer record, with its licenses, to the new
 * address; no second customer is created. No license changes otherwise.
 */
export async function onCustomerUpserted(s: CustomerScope, cmd: CustomerUpsertedCommand): Promise<PaymentApplied> {
  const providerCustomerId = requireString(cmd.customer?.providerCustomerId, 'customer.providerCustomerId', 200);
  const email = requireEmail(cmd.customer.email, 'customer.email');
  const name = cmd.customer.name ?? null;
  const { mapping, customer: read } = s.prefetched;
  // Read with the unit's first reads: a new mapping is inserted held for the commit (a concurrent
  // insert of it clashes there, and the unit runs again and finds it). Otherwise the mapping's claim
  // (straight to its insert: usually a new customer) and the customer's read go in one turn.
  const [previous, found] =
    mapping !== undefined && read !== undefined
      ? [await rememberProviderCustomer(s, providerCustomerId, email, name, mapping), read]
      : await together([rememberProviderCustomer(s, providerCustomerId, email, name, null), s.tx.findOne('customers', { accountId: s.account.id, email })]);
  const moved = previous !== null && previous !== email ? await moveCustomer(s.ctx, s.tx, s.account.id, previous, email, name) : null;
  const customer = moved ?? (await upsertCustomer(s.ctx, s.tx, s.account.id, email, name, found));
  return processed(`provider customer ${providerCustomerId} is ${customer.id}`, null);
}

/** A one-time purchase: a perpetual license for the mapped (non-subscription) plan, its key e-mailed. */
export async function onPurchase(s: PaymentScope, cmd: PurchaseCompletedCommand): Promise<PaymentApplied> {
  const orderId = requireString(cmd.orderId, 'orderId', 200);
  const priceId = requireString(cmd.priceId, 'priceId', 200);
  const seats = quantityOf(cmd.quantity) ?? 1;
  // Only reads, asked for together (one round trip on MySQL): the plan, the order's license, the
  // customer's mapping and the sender domain of the key e-mail.
  const [plan, existing, mapping] = await Promise.all([
    mappedPlan(s, priceId),
    s.prefetched.orderLicenses ?? s.tx.findMany('licenses', { productId: s.product.id, orderId }),
    providerCustomerOf(s, cmd.customer),
    s.account.status === 'open' ? senderDomainOnce(s) : null,
  ]);
  if (!plan) return ignored(`price ${priceId} is not in the price map`);
  // A subscription's first order also arrives as a purchase; its subscription events handle it.
  if (plan.kind === 'subscription') return ignored(`price ${priceId} maps to subscription plan ${plan.code}; the subscription's events create its license`);
  if (existing[0]) return ignored(`order ${orderId} already has license ${existing[0].id}`, existing[0].id);
  // The order's claim and the customer's read in one turn (one round trip on MySQL).
  const [, customer] = await together([claimOrder(s, orderId), resolveCustomer(s, cmd.customer, mapping, s.prefetched.customer)]);
  const { license, key } = await insertLicense(s.ctx, s.tx, {
    product: s.product,
    plan,
    customer,
    status: 'perpetual',
    paidUntil: null,
    seats,
    locale: s.account.defaultLocale,
    provider: s.integration.provider,
    integrationId: s.integration.id,
    subscriptionId: null,
    orderId,
    lastEventKey: s.key,
    account: s.account,
  });
  return processed(`perpetual license created for order ${orderId}`, license.id, await keyEmailFor(s, license, plan, key));
}

/** How long an order claim is kept: only units of work running when its license was committed need it. */
const ORDER_CLAIM_MS = 86_400_000;

/**
 * Claims the order for this unit of work before its license is created, so that two different
 * events of one order (two event IDs of one transaction, a provider_b order delivered again with a
 * newer `updated_at`) processed at once cannot both create a license: the unlocked read before
 * this finds no license in either, and licenses have no unique key on (product, order).
 *
 * The claim is a marker in `counters` (`ord_` + 40 hex of SHA-256 of product and order), inserted
 * first like every claim of the webhook unit, so no gap is locked. A concurrent claim of the same
 * order waits on the insert and, once the winner committed, clashes; the clash is rethrown, and
 * `transact` reruns the unit, whose fresh read then finds the winner's license (answered `ignored`).
 * It is not answered with a locking read of the marker: three waiters holding the clash's shared
 * lock and each asking for the exclusive one deadlock on InnoDB. A marker this unit's snapshot
 * already sees was committed before it began, with a license that is gone since (only a purge
 * deletes licenses): it is taken over and the license created. When the unit's first reads
 * already looked for the marker (`prefetched.orderMarker`), a missing one is inserted held for the
 * commit, and a clash there reruns the unit in the same way.
 */
async function claimOrder(s: PaymentScope, orderId: string): Promise<void> {
  const id = orderMarkerId(s.product.id, orderId);
  const expiresAt = toTimestamp(s.ctx.clock.now() + ORDER_CLAIM_MS);
  const known = s.prefetched.orderMarker;
  if (known === null) {
    // The unit's first reads saw no marker: the insert is held for the commit, where a concurrent
    // claim's marker makes it clash just the same (the unit then runs again).
    await s.tx.insert('counters', { id, accountId: s.account.id, count: 1, expiresAt }, { defer: true });
    return;
  }
  if (known) {
    const marker = await s.tx.get('counters', id, { lock: true });
    if (marker) return s.tx.update('counters', { ...marker, count: marker.count + 1, expiresAt });
  }
  try {
    await s.tx.insert('counters', { id, accountId: s.account.id, count: 1, expiresAt });
  } catch (error) {
    if (!StoreConflictError.is(error) || !(await s.tx.get('counters', id))) throw error;
    const marker = await s.tx.get('counters', id, { lock: true });
    if (!marker) throw error;
    await s.tx.update('counters', { ...marker, count: marker.count + 1, expiresAt });
  }
}

async function licenseOf(s: PaymentScope, ref: { subscriptionId: string | null; orderId: string | null }): Promise<LicenseRecord | null> {
  if (ref.subscriptionId) {
    const bySubscription = await licenseOfSubscription(s, ref.subscriptionId);
    if (bySubscription) return bySubscription;
  }
  if (!ref.orderId) return null;
  const byOrder = await s.tx.findMany('licenses', { productId: s.product.id, orderId: ref.orderId }, { lock: true });
  return byOrder[0] ?? null;
}

const later = (a: string | null, b: string) => (a !== null && a > b ? a : b);

/** A full refund makes the license `refunded` (reinstate returns to the status before); a partial one changes nothing. */
export async function onRefund(s: PaymentScope, cmd: RefundedCommand): Promise<PaymentApplied> {
  const license = await licenseOf(s, cmd);
  if (!license) return ignored('no license for this subscription or order');
  if (!cmd.full) return ignored('partial refund: nothing changes', license.id);
  if (license.status === 'revoked') return ignored('the license is revoked and stays revoked', license.id);
  if (license.status === 'refunded') return ignored('the license is already refunded', license.id);
  const next = { ...withStatus(license, 'refunded'), lastEventKey: later(license.lastEventKey, s.key) };
  await saveLicense(s.ctx, s.tx, license, next, s.integration.provider, s.account);
  return processed('full refund: license refunded', license.id);
}

/** A chargeback revokes the license, for good. */
export async function onChargeback(s: PaymentScope, cmd: ChargebackCommand): Promise<PaymentApplied> {
  const license = await licenseOf(s, cmd);
  if (!license) return ignored('no license for this subscription or order');
  if (license.status === 'revoked') return ignored('the license is already revoked', license.id);
  const next = { ...withStatus(license, 'revoked'), lastEventKey: later(license.lastEventKey, s.key) };
  await saveLicense(s.ctx, s.tx, license, next, s.integration.provider, s.account);
  return processed('chargeback: license revoked', license.id);
}
