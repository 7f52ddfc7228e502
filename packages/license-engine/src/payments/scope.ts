import type { AccountRecord, IntegrationRecord, LicenseRecord, PlanRecord, ProductRecord, SenderDomainRecord } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import { buildKeyEmail, reserveKeyEmailIn, type KeyEmail } from '../mail/key-email.js';
import { senderDomainOf } from '../mail/sender-domains.js';
import type { EngineContext } from '../_internal/context.js';
import { invalid } from '../_internal/validate.js';
import type { Prefetched } from './prefetch.js';
import type { PaymentApplied } from './result.js';

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

/** What a customer event's handler works on: no product (its unit reads none; see `applyPaymentCommand`). */
export type CustomerScope = Omit<PaymentScope, 'product'>;


/**
 * The account's sender domain for a key e-mail, read once per unit. Ask for it together with the
 * unit's other reads (before its held writes), where the MySQL store adds it to their round trip.
 */
export function senderDomainOnce(s: PaymentScope): Promise<SenderDomainRecord | null> {
  return (s.senderDomain ??= senderDomainOf(s.tx, s.account.id));
}

export const ignored = (detail: string, licenseId: string | null = null): PaymentApplied => ({ result: 'ignored', detail, licenseId, keyEmail: null });
export const processed = (detail: string, licenseId: string | null, keyEmail: PaymentApplied['keyEmail'] = null): PaymentApplied => ({
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
 * The license following a provider subscription in this product, locked; null when none does. Read
 * without a lock (with the unit's first reads when prefetched), then the license found is locked by
 * its ID and checked again: a locking read of a subscription that no license follows yet would lock
 * the index gaps where new licenses go, and concurrent purchases inserting theirs there deadlocked
 * on each other (on MariaDB). A license starts following a subscription only in a unit holding the
 * subscription's claim ({@link claimSubscription} in subscriptions.ts), so one that does after this
 * unit's read makes that claim clash here, and the unit runs again.
 */
export async function licenseOfSubscription(s: PaymentScope, subscriptionId: string): Promise<LicenseRecord | null> {
  const known = s.prefetched.subscription;
  const found = known?.id === subscriptionId ? known.licenses : await s.tx.findMany('licenses', { productId: s.product.id, subscriptionId });
  for (const candidate of found) {
    const locked = await s.tx.get('licenses', candidate.id, { lock: true });
    if (locked && locked.productId === s.product.id && locked.subscriptionId === subscriptionId) return locked;
  }
  return null;
}

export function quantityOf(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 100_000) invalid('quantity must be a positive integer');
  return value;
}

/**
 * Reserves the license's key e-mail and builds it (`key`: the clear key of a license made in this
 * unit); none while the account is closed.
 */
export async function keyEmailFor(s: PaymentScope, license: LicenseRecord, plan: PlanRecord, key?: string): Promise<PaymentApplied['keyEmail']> {
  if (s.account.status !== 'open') return null;
  const domain = senderDomainOnce(s);
  await reserveKeyEmailIn(s.ctx, s.tx, license, s.account);
  const email = buildKeyEmail(s.ctx, { license, account: s.account, product: s.product, plan, domain: await domain, ...(key === undefined ? {} : { key }) });
  return { licenseId: license.id, email };
}
