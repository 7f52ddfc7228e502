import type { PaymentCommand } from '../commands.js';
import type { CounterRecord, CustomerRecord, LicenseRecord, PlanRecord, ProviderCustomerRecord, SenderDomainRecord } from '../records.js';
import type { StoreTx } from '../store.js';
import { senderDomainOf } from '../sender-domains.js';
import { sha256Hex } from './hash.js';
import { requireEmail, requireString } from './validate.js';

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
  senderDomain?: SenderDomainRecord | null;
}

type Pending = { [K in keyof Prefetched]: Promise<Prefetched[K]> };

/** The `counters` ID of an order's claim: `ord_` and 40 hex of SHA-256 of product and order. */
export const orderMarkerId = (productId: string, orderId: string): string => `ord_${sha256Hex(`${productId}\n${orderId}`).slice(0, 40)}`;

/**
 * Asks for what `command`'s handler reads first, for a new customer and a one-time purchase (the
 * common events); nothing for the others, or for a field that does not validate (the handler then
 * refuses it). The reads are asked for at once, in this turn.
 */
export function prefetchFor(tx: StoreTx, home: { accountId: string; productId: string }, integrationId: string, command: PaymentCommand): Pending {
  const text = (value: unknown, max: number): string | null => {
    try {
      return requireString(value, 'value', max);
    } catch {
      return null;
    }
  };
  const providerCustomerId = text(command.kind === 'customer_upserted' || command.kind === 'purchase_completed' ? command.customer?.providerCustomerId : null, 200);
  const mappingOf = (id: string) => tx.findOne('providerCustomers', { integrationId, providerCustomerId: id });
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
    if (!command.customer?.email && providerCustomerId !== null) {
      if (tx.readProviderCustomer) {
        // The mapping and the customer it names in one read (they would take two round trips).
        const both = tx.readProviderCustomer({ integrationId, providerCustomerId, accountId: home.accountId });
        pending.mapping = both.then((b) => b.mapping);
        pending.customer = both.then((b) => b.customer);
      } else pending.mapping = mappingOf(providerCustomerId);
    }
    if (orderId !== null) {
      pending.orderLicenses = tx.findMany('licenses', { productId: home.productId, orderId });
      pending.orderMarker = tx.get('counters', orderMarkerId(home.productId, orderId));
    }
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
