import type { PaymentCommand } from '../_internal/commands.js';
import type { CounterRecord, CustomerRecord, LicenseRecord, PlanRecord, ProviderCustomerRecord, SenderDomainRecord } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import { senderDomainOf } from '../mail/sender-domains.js';
import { sha256Hex } from '../_internal/hash.js';
import { requireEmail, requireString } from '../_internal/validate.js';

/**
 * Records a payment handler would read first, read with the unit's first reads when the
 * integration's product and account are known (one round trip on MySQL instead of one more). Each
 * field is absent when it was not read; a handler then reads it itself.
 */
export interface Prefetched {
  /** The provider customer's mapping (null: none). */
  mapping?: ProviderCustomerRecord | null;
  /** The customer with the event's e-mail, or for a purchase naming only a provider customer, with the mapping's (null: none). */
  customer?: CustomerRecord | null;
  /** Every plan of the product (the price map names one by code). */
  plans?: PlanRecord[];
  /** The product's licenses of the event's order. */
  orderLicenses?: LicenseRecord[];
  /** The order's claim marker (null: none). */
  orderMarker?: CounterRecord | null;
  /** The licenses following the event's subscription (unlocked) and its claim marker (null: none). */
  subscription?: { id: string; licenses: LicenseRecord[]; marker: CounterRecord | null };
  senderDomain?: SenderDomainRecord | null;
}

type Pending = { [K in keyof Prefetched]: Promise<Prefetched[K]> };

/** The `counters` ID of an order's claim: `ord_` and 40 hex of SHA-256 of product and order. */
export const orderMarkerId = (productId: string, orderId: string): string => `ord_${sha256Hex(`${productId}\n${orderId}`).slice(0, 40)}`;

/** The `counters` ID of a subscription's claim: `sub_` and 40 hex of SHA-256 of product and subscription. */
export const subscriptionMarkerId = (productId: string, subscriptionId: string): string =>
  `sub_${sha256Hex(`${productId}\n${subscriptionId}`).slice(0, 40)}`;

/**
 * Asks for what `command`'s handler reads first, for a new customer, a one-time purchase and a
 * subscription event (the common events); nothing for the others, or for a field that does not
 * validate (the handler then refuses it). The reads are asked for at once, in this turn.
 */
export function prefetchFor(tx: StoreTx, home: { accountId: string; productId: string }, integrationId: string, command: PaymentCommand): Pending {
  const text = (value: unknown, max: number): string | null => {
    try {
      return requireString(value, 'value', max);
    } catch {
      return null;
    }
  };
  const providerCustomerId = text(command.kind === 'ignored' || command.kind === 'refunded' || command.kind === 'chargeback' ? null : command.customer?.providerCustomerId, 200);
  const mappingOf = (id: string) => tx.findOne('providerCustomers', { integrationId, providerCustomerId: id });
  /** A purchase naming only a provider customer: its mapping and the customer it names. */
  const mappedCustomer = (pending: Pending, customer: { email?: string | null } | undefined) => {
    if (customer?.email || providerCustomerId === null) return;
    if (tx.readProviderCustomer) {
      // The mapping and the customer it names in one read (they would take two round trips).
      const both = tx.readProviderCustomer({ integrationId, providerCustomerId, accountId: home.accountId });
      pending.mapping = both.then((b) => b.mapping);
      pending.customer = both.then((b) => b.customer);
    } else pending.mapping = mappingOf(providerCustomerId);
  };
  if (command.kind === 'customer_upserted') {
    let email: string | null;
    try {
      email = requireEmail(command.customer?.email);
    } catch {
      email = null;
    }
    const pending: Pending = {};
    if (providerCustomerId !== null) pending.mapping = mappingOf(providerCustomerId);
    if (email !== null) pending.customer = tx.findOne('customers', { accountId: home.accountId, email });
    return pending;
  }
  if (command.kind === 'purchase_completed') {
    const orderId = text(command.orderId, 200);
    const pending: Pending = { plans: tx.findMany('plans', { productId: home.productId }), senderDomain: senderDomainOf(tx, home.accountId) };
    mappedCustomer(pending, command.customer);
    if (orderId !== null) {
      pending.orderLicenses = tx.findMany('licenses', { productId: home.productId, orderId });
      pending.orderMarker = tx.get('counters', orderMarkerId(home.productId, orderId));
    }
    return pending;
  }
  if (command.kind === 'subscription_paid' || command.kind === 'subscription_changed') {
    const id = text(command.subscriptionId, 200);
    if (id === null) return {};
    const licenses = tx.findMany('licenses', { productId: home.productId, subscriptionId: id });
    const marker = tx.get('counters', subscriptionMarkerId(home.productId, id));
    // What creating the subscription's license reads too (a renewal reads only the license).
    const pending: Pending = {
      plans: tx.findMany('plans', { productId: home.productId }),
      senderDomain: senderDomainOf(tx, home.accountId),
      subscription: Promise.all([licenses, marker]).then(([l, m]) => ({ id, licenses: l, marker: m })),
    };
    mappedCustomer(pending, command.customer);
    return pending;
  }
  return {};
}

/** Waits for the prefetched reads (see `together`: call it inside the unit's first turn). */
export async function settledPrefetch(pending: Pending): Promise<Prefetched> {
  const keys = Object.keys(pending) as (keyof Prefetched)[];
  const values = await Promise.all(keys.map((k) => pending[k]));
  return Object.fromEntries(keys.map((k, i) => [k, values[i]])) as Prefetched;
}
