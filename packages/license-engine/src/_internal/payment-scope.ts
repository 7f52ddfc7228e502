import type { LicenseStatus } from '@svc-licensing/cert-format';
import type { CustomerRef } from '../commands.js';
import { LicensingError } from '../errors.js';
import type { AccountRecord, CustomerRecord, IntegrationRecord, LicenseRecord, PlanRecord, ProductRecord, ProviderCustomerRecord, SenderDomainRecord, Timestamp } from '../records.js';
import type { StoreTx } from '../store.js';
import { upsertCustomer } from '../customers.js';
import { buildKeyEmail, reserveKeyEmailIn, type KeyEmail } from '../key-email.js';
import { senderDomainOf } from '../sender-domains.js';
import { lockOrInsert } from './claim.js';
import type { EngineContext } from './context.js';
import { now } from './context.js';
import { validUntilOf } from './effective.js';
import { insertLicense } from './new-license.js';
import { timestampMs } from './time.js';
import { saveLicense, withStatus } from './status.js';
import { invalid, requireEmail, requireString } from './validate.js';
import type { Prefetched } from './payment-prefetch.js';

/** Everything a payment handler works on: one transaction, one integration, one event. */
export interface PaymentScope {
  ctx: EngineContext;
  tx: StoreTx;
  integration: IntegrationRecord;
  product: ProductRecord;
  account: AccountRecord;
  /** The event's ordering key (docs/decisions.md). */
  key: string;
  /** The account's sender domain, read once per unit (see {@link senderDomainOnce}). */
  senderDomain?: Promise<SenderDomainRecord | null>;
  /** What the unit's first reads already brought for the handler (see `prefetchFor`). */
  prefetched: Prefetched;
}

export interface Outcome {
  result: 'processed' | 'duplicate' | 'ignored';
  detail: string;
  licenseId: string | null;
  keyEmail: { licenseId: string; email: KeyEmail } | null;
}

/**
 * The account's sender domain for a key e-mail, read once per unit. Ask for it together with the
 * unit's other reads (before its held writes), where the MySQL store adds it to their round trip.
 */
export function senderDomainOnce(s: PaymentScope): Promise<SenderDomainRecord | null> {
  return (s.senderDomain ??= senderDomainOf(s.tx, s.account.id));
}

export const ignored = (detail: string, licenseId: string | null = null): Outcome => ({ result: 'ignored', detail, licenseId, keyEmail: null });
export const processed = (detail: string, licenseId: string | null, keyEmail: Outcome['keyEmail'] = null): Outcome => ({
  result: 'processed',
  detail,
  licenseId,
  keyEmail,
});

/** The plan a provider price maps to in this integration, or null (unmapped, or no such plan code). */
export async function mappedPlan(s: PaymentScope, priceId: string): Promise<PlanRecord | null> {
  if (!Object.hasOwn(s.integration.priceMap, priceId)) return null;
  const code = s.integration.priceMap[priceId];
  if (code === undefined) return null;
  if (s.prefetched.plans) return s.prefetched.plans.find((p) => p.code === code) ?? null;
  return s.tx.findOne('plans', { productId: s.product.id, code });
}

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
  s: PaymentScope,
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

/** The license following a provider subscription in this product, locked; null when none does. */
export async function licenseOfSubscription(s: PaymentScope, subscriptionId: string): Promise<LicenseRecord | null> {
  const found = await s.tx.findMany('licenses', { productId: s.product.id, subscriptionId }, { lock: true });
  return found[0] ?? null;
}

export function quantityOf(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 100_000) invalid('quantity must be a positive integer');
  return value;
}

/**
 * A license for a new subscription: the customer's earlier, ended subscription license of the same
 * plan is reused (same key and machines) when there is one, else a new license is created. Either way
 * the key e-mail is reserved (unless the account is closed).
 */
export async function subscriptionLicense(
  s: PaymentScope,
  input: { customer: CustomerRecord; plan: PlanRecord; subscriptionId: string; orderId: string | null; status: LicenseStatus; paidUntil: Timestamp; seats: number },
): Promise<Outcome> {
  const [licenses] = await Promise.all([
    s.tx.findMany('licenses', { customerId: input.customer.id, planId: input.plan.id }, { lock: true }),
    s.account.status === 'open' ? senderDomainOnce(s) : null,
  ]);
  const previous = licenses.find((l) => l.subscriptionId !== null && l.status !== 'revoked' && subscriptionEnded(s, l));
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
    await saveLicense(s.ctx, s.tx, previous, next, s.integration.provider);
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
  });
  return processed(`license created for subscription ${input.subscriptionId}`, license.id, await keyEmailFor(s, license, input.plan, key));
}

/** An earlier subscription is over: expired or canceled, or its paid period plus grace has passed. */
function subscriptionEnded(s: PaymentScope, license: LicenseRecord): boolean {
  if (license.status === 'expired' || license.status === 'canceled') return true;
  const validUntil = validUntilOf(license, s.product);
  return validUntil !== null && timestampMs(validUntil) <= s.ctx.clock.now();
}

/**
 * Reserves the license's key e-mail and builds it (`key`: the clear key of a license made in this
 * unit); none while the account is closed.
 */
export async function keyEmailFor(s: PaymentScope, license: LicenseRecord, plan: PlanRecord, key?: string): Promise<Outcome['keyEmail']> {
  if (s.account.status !== 'open') return null;
  const domain = senderDomainOnce(s);
  await reserveKeyEmailIn(s.ctx, s.tx, license, s.account);
  const email = buildKeyEmail(s.ctx, { license, account: s.account, product: s.product, plan, domain: await domain, ...(key === undefined ? {} : { key }) });
  return { licenseId: license.id, email };
}
