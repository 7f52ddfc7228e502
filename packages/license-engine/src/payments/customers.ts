import type { CustomerRef } from '../_internal/commands.js';
import { LicensingError } from '../_internal/errors.js';
import type { CustomerRecord, ProviderCustomerRecord } from '../_internal/records.js';
import { upsertCustomer } from '../licenses/customers.js';
import { lockOrInsert } from '../_internal/claim.js';
import { now } from '../_internal/context.js';
import { invalid, requireEmail, requireString } from '../_internal/validate.js';
import type { CustomerScope, PaymentScope } from './scope.js';

/**
 * The customer an event is about: by e-mail, else by the mapped provider customer ID (`customer_unknown`
 * until mapped). A ref with both an e-mail and a provider customer ID (a provider_a customer the host
 * fetched with the integration's API key) also saves the mapping, so later events need no fetch.
 */
export async function resolveCustomer(
  s: PaymentScope,
  ref: CustomerRef,
  mapped?: ProviderCustomerRecord | null,
  mappedCustomer?: CustomerRecord | null,
): Promise<CustomerRecord> {
  if (ref.email) {
    const email = requireEmail(ref.email, 'customer.email');
    if (ref.providerCustomerId) await rememberProviderCustomer(s, requireString(ref.providerCustomerId, 'customer.providerCustomerId', 200), email, ref.name ?? null);
    return upsertCustomer(s.ctx, s.tx, s.account.id, email, ref.name ?? null);
  }
  if (!ref.providerCustomerId) invalid('the event names no customer');
  const mapping = mapped !== undefined ? mapped : await providerCustomerOf(s, ref);
  if (!mapping) throw new LicensingError('customer_unknown', `provider customer ${ref.providerCustomerId} is not known yet`);
  // `mappedCustomer`: read in this unit with the mapping (`readProviderCustomer`), so it is the
  // customer with the mapping's e-mail, or null for none (then inserted held for the commit).
  const read = mappedCustomer === null || mappedCustomer?.email === mapping.email ? mappedCustomer : undefined;
  return upsertCustomer(s.ctx, s.tx, s.account.id, mapping.email, ref.name ?? mapping.name, read);
}

/**
 * The mapping of a customer ref without an e-mail (what {@link resolveCustomer} reads), or null; a
 * caller may read it together with its other reads and hand it to `resolveCustomer`.
 */
export function providerCustomerOf(s: PaymentScope, ref: CustomerRef): Promise<ProviderCustomerRecord | null> {
  if (ref.email || !ref.providerCustomerId) return Promise.resolve(null);
  if (s.prefetched.mapping !== undefined) return Promise.resolve(s.prefetched.mapping);
  return s.tx.findOne('providerCustomers', { integrationId: s.integration.id, providerCustomerId: ref.providerCustomerId });
}

/**
 * Maps a provider customer ID to an e-mail in this integration (inserted, or updated when the e-mail or
 * name changed; an unchanged mapping is not rewritten). Returns the e-mail it mapped to before, or null
 * for a new mapping.
 */
export async function rememberProviderCustomer(
  s: CustomerScope,
  providerCustomerId: string,
  email: string,
  name: string | null,
  read?: ProviderCustomerRecord | null,
): Promise<string | null> {
  const at = now(s.ctx);
  const record: ProviderCustomerRecord = {
    id: s.ctx.ids.next('pcu'),
    accountId: s.account.id,
    integrationId: s.integration.id,
    providerCustomerId,
    email,
    name,
    createdAt: at,
    updatedAt: at,
  };
  if (read === null && s.prefetched.mapping === null) {
    // The unit's first reads found none: held for the commit, where a concurrent insert of the same
    // mapping clashes and the unit runs again (and finds it).
    await s.tx.insert('providerCustomers', record, { defer: true });
    return null;
  }
  // `read`: the caller's unlocked read of the mapping in this unit (null: none, or none expected),
  // which then goes straight to the insert.
  const mapping = await lockOrInsert(
    (lock) => s.tx.findOne('providerCustomers', { integrationId: s.integration.id, providerCustomerId }, lock),
    () => s.tx.insert('providerCustomers', record),
    { usuallyMissing: read === null },
  );
  if (!mapping) return null;
  const next = { ...mapping, email, name };
  if (next.email !== mapping.email || next.name !== mapping.name) await s.tx.update('providerCustomers', { ...next, updatedAt: at });
  return mapping.email;
}
