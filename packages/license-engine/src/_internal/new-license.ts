import type { LicenseStatus } from '@svc-licensing/cert-format';
import { generateLicenseKey, hashLicenseKey } from '@svc-licensing/cert-format';
import type { AccountRecord, CustomerRecord, LicenseRecord, Locale, PlanRecord, ProductRecord, ProviderName, Timestamp } from './records.js';
import type { StoreTx } from './store.js';
import { audit } from './audit.js';
import type { EngineContext } from './context.js';
import { now } from './context.js';
import { sealLicenseKey } from './sealed.js';
import { licenseView } from './record-views.js';

export interface NewLicense {
  product: ProductRecord;
  plan: PlanRecord;
  customer: CustomerRecord;
  status: LicenseStatus;
  paidUntil: Timestamp | null;
  seats: number;
  locale: Locale;
  provider: ProviderName | null;
  integrationId: string | null;
  subscriptionId: string | null;
  orderId: string | null;
  lastEventKey: string | null;
  /** The account as the unit read it (its notification subscriptions); read again when absent. */
  account?: AccountRecord;
}

/**
 * The licenses `insertLicense` created (the very objects it returned): their key e-mail needs no
 * claim, since no reservation can exist for an ID made in the same unit of work.
 */
export const createdLicenses = new WeakSet<LicenseRecord>();

/**
 * Inserts a license with a fresh key (stored as SHA-256 + ciphertext) and logs `license.created`.
 * 100 random bits make a key clash practically impossible, so no read looks for one first: the
 * unique key on the hash still refuses a clash, which fails the unit of work (at the insert, or at
 * the commit where the store holds the insert), and `transact` runs the unit again with a new key.
 */
export async function insertLicense(ctx: EngineContext, tx: StoreTx, input: NewLicense): Promise<{ license: LicenseRecord; key: string }> {
  const key = generateLicenseKey(input.product.keyPrefix, (n) => ctx.random.bytes(n));
  const at = now(ctx);
  const id = ctx.ids.next('lic');
  const license: LicenseRecord = {
    id,
    accountId: input.product.accountId,
    productId: input.product.id,
    planId: input.plan.id,
    planCode: input.plan.code,
    customerId: input.customer.id,
    customerEmail: input.customer.email,
    customerName: input.customer.name,
    status: input.status,
    heldStatus: null,
    seats: input.seats,
    maxActivations: null,
    maxMajorOverride: null,
    paidUntil: input.paidUntil,
    keyHash: hashLicenseKey(key),
    keyEncrypted: sealLicenseKey(ctx, id, key),
    provider: input.provider,
    integrationId: input.integrationId,
    subscriptionId: input.subscriptionId,
    orderId: input.orderId,
    lastEventKey: input.lastEventKey,
    activationCount: 0,
    locale: input.locale,
    createdAt: at,
    updatedAt: at,
  };
  await tx.insert('licenses', license, { defer: true });
  createdLicenses.add(license);
  await audit(ctx, tx, {
    accountId: license.accountId,
    type: 'license.created',
    licenseId: license.id,
    data: { plan: input.plan.code, source: input.provider ?? 'vendor' },
    ...(input.account ? { account: input.account } : {}),
    view: () => licenseView(license, input.plan, input.product),
  });
  return { license, key };
}
