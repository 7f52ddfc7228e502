import { hashLicenseKey, isLicenseStatus } from '@svc-licensing/cert-format';
import { LicensingError } from '../_internal/errors.js';
import type { LicenseRecord, Locale, PlanRecord, Timestamp } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import { loadAccount } from '../_internal/account.js';
import { audit } from '../_internal/audit.js';
import { upsertCustomer } from './customers.js';
import { reserveKeyEmailIn } from '../mail/key-email.js';
import type { EngineContext } from '../_internal/context.js';
import { now, owned, transact } from '../_internal/context.js';
import { licenseDetail, licenseViews } from '../_internal/license-load.js';
import { insertLicense } from '../_internal/new-license.js';
import { addDays, fitsAfterDays, parseTimestampInput } from '../_internal/time.js';
import { asObject, invalid, optionalBoolean, requireEmail, requireInt, requireString } from '../_internal/validate.js';
import type { LicenseDetailView, LicenseView, ListView } from '../_internal/views.js';
import { openCursor, sealCursor } from '../_internal/cursor.js';
import { together } from '../_internal/together.js';

export interface CreateLicenseInput {
  /** Plan ID, or plan code together with `product`. */
  plan: string;
  product?: string;
  email: string;
  name?: string;
  seats?: number;
  /** Required for a subscription plan; not accepted for perpetual and trial plans. */
  paidUntil?: string;
  sendEmail?: boolean;
  locale?: Locale;
}

async function resolvePlan(tx: StoreTx, accountId: string, plan: string, product: string | null): Promise<PlanRecord> {
  if (plan.startsWith('pln_')) {
    const record = await owned(tx, 'plans', accountId, plan, 'plan');
    if (product !== null && record.productId !== product) throw new LicensingError('not_found', `plan ${plan} not found on product ${product}`);
    return record;
  }
  if (product === null) invalid('plan must be a plan ID, or a plan code together with product');
  await owned(tx, 'products', accountId, product, 'product');
  const record = await tx.findOne('plans', { productId: product, code: plan });
  if (!record) throw new LicensingError('not_found', `plan ${plan} not found on product ${product}`);
  return record;
}

/**
 * `POST /licenses`. Subscription plan: `active` until `paidUntil`. Perpetual plan: `perpetual`.
 * Trial plan: `active` with `paidUntil` = now + trialDays. `sendKeyEmail` is true when the host
 * must e-mail the key now (asked for, account open); the e-mail is then already reserved.
 */
export async function createLicense(
  ctx: EngineContext,
  accountId: string,
  input: CreateLicenseInput,
): Promise<{ license: LicenseDetailView; sendKeyEmail: boolean }> {
  const body = asObject(input);
  const planRef = requireString(body.plan, 'plan', 100);
  const productRef = body.product === undefined || body.product === null ? null : requireString(body.product, 'product', 100);
  const email = requireEmail(body.email);
  const name = body.name === undefined || body.name === null ? null : requireString(body.name, 'name', 200);
  const seats = body.seats === undefined ? 1 : requireInt(body.seats, 'seats', 1, 100_000);
  const sendEmail = optionalBoolean(body.sendEmail, 'sendEmail') ?? false;
  if (body.locale !== undefined && body.locale !== 'en' && body.locale !== 'fr') invalid('locale must be en or fr');
  const paidUntilInput = body.paidUntil === undefined || body.paidUntil === null ? null : parseTimestampInput(body.paidUntil, 'paidUntil');
  return transact(ctx, async (tx) => {
    const account = await loadAccount(tx, accountId);
    const plan = await resolvePlan(tx, accountId, planRef, productRef);
    let paidUntil: Timestamp | null;
    if (plan.kind === 'subscription') {
      if (paidUntilInput === null) invalid('paidUntil is required for a subscription plan');
      paidUntil = paidUntilInput;
    } else {
      if (paidUntilInput !== null) invalid(`paidUntil is not accepted for a ${plan.kind} plan`);
      paidUntil = plan.kind === 'trial' ? addDays(now(ctx), plan.trialDays) : null;
    }
    const product = await owned(tx, 'products', accountId, plan.productId, 'product');
    if (paidUntilInput !== null) requireValidUntilInRange(paidUntilInput, product.graceDays);
    const customer = await upsertCustomer(ctx, tx, accountId, email, name);
    const { license } = await insertLicense(ctx, tx, {
      product,
      plan,
      customer,
      status: plan.kind === 'perpetual' ? 'perpetual' : 'active',
      paidUntil,
      seats,
      locale: (body.locale as Locale | undefined) ?? account.defaultLocale,
      provider: null,
      integrationId: null,
      subscriptionId: null,
      orderId: null,
      lastEventKey: null,
      account,
    });
    const sendKeyEmail = sendEmail && account.status === 'open';
    if (sendKeyEmail) await reserveKeyEmailIn(ctx, tx, license);
    return { license: await licenseDetail(ctx, tx, license), sendKeyEmail };
  });
}

export interface LicenseFilters {
  product?: string | null;
  status?: string | null;
  email?: string | null;
  q?: string | null;
  key?: string | null;
  cursor?: string | null;
}

const given = (value: string | null | undefined): value is string => value !== undefined && value !== null && value !== '';

/** `GET /licenses`: newest first, filtered by product, status, exact e-mail, `q`, complete key. */
export async function listLicenses(ctx: EngineContext, accountId: string, filters: LicenseFilters = {}): Promise<ListView<LicenseView>> {
  const where: Partial<LicenseRecord> = { accountId };
  if (given(filters.product)) where.productId = String(filters.product);
  if (given(filters.status)) {
    if (!isLicenseStatus(filters.status)) invalid(`status must be one of the license statuses, got ${filters.status}`);
    where.status = filters.status;
  }
  if (given(filters.email)) where.customerEmail = String(filters.email).trim().toLowerCase();
  if (given(filters.key)) where.keyHash = hashLicenseKey(String(filters.key));
  const q = given(filters.q) ? requireString(filters.q, 'q', 200) : null;
  const scope = ['licenses', accountId, where.productId, where.status, where.customerEmail, where.keyHash, q] as const;
  const cursor = openCursor(ctx, scope, filters.cursor);
  return transact(ctx, async (tx) => {
    const page = await tx.page('licenses', {
      where,
      ...(q === null ? {} : { search: { text: q, fields: ['customerEmail', 'customerName'] as const } }),
      cursor,
      limit: 50,
      order: 'desc',
    });
    const view = licenseViews(tx, ctx.clock.now());
    const data: LicenseView[] = [];
    for (const license of page.data) data.push(await view(license));
    return { data, nextCursor: sealCursor(ctx, scope, page.nextCursor) };
  });
}

/** `GET /licenses/{id}`: with `key` and `activations`. */
export async function getLicense(ctx: EngineContext, accountId: string, id: string): Promise<LicenseDetailView> {
  return transact(ctx, async (tx) => licenseDetail(ctx, tx, await owned(tx, 'licenses', accountId, id, 'license')));
}

export interface UpdateLicenseInput {
  paidUntil?: string;
  seats?: number;
  /** null returns to plan machines x seats. */
  maxActivations?: number | null;
  /** A number overrides the plan's maxMajor; null returns to the plan's value. */
  maxMajor?: number | null;
}

/** `PATCH /licenses/{id}`: `conflict` when revoked; audited as `license.updated`. */
export async function updateLicense(ctx: EngineContext, accountId: string, id: string, patch: UpdateLicenseInput): Promise<LicenseView> {
  const body = asObject(patch);
  const changes: Partial<LicenseRecord> = {};
  if (body.paidUntil !== undefined) changes.paidUntil = parseTimestampInput(body.paidUntil, 'paidUntil');
  if (body.seats !== undefined) changes.seats = requireInt(body.seats, 'seats', 1, 100_000);
  if (body.maxActivations !== undefined) {
    changes.maxActivations = body.maxActivations === null ? null : requireInt(body.maxActivations, 'maxActivations', 0, 1_000_000);
  }
  if (body.maxMajor !== undefined) {
    changes.maxMajorOverride = body.maxMajor === null ? null : { value: requireInt(body.maxMajor, 'maxMajor', 0, 1_000_000) };
  }
  const fields = Object.keys(body).filter((k) => ['paidUntil', 'seats', 'maxActivations', 'maxMajor'].includes(k));
  return transact(ctx, async (tx) => {
    const [license, account] = await together([owned(tx, 'licenses', accountId, id, 'license', true), tx.get('accounts', accountId)]);
    if (license.status === 'revoked') throw new LicensingError('conflict', 'the license is revoked; it cannot change');
    if (changes.paidUntil !== undefined && license.status === 'perpetual') invalid('a perpetual license has no paid period');
    if (changes.paidUntil) requireValidUntilInRange(changes.paidUntil, (await owned(tx, 'products', accountId, license.productId, 'product')).graceDays);
    const next: LicenseRecord = { ...license, ...changes, updatedAt: now(ctx) };
    await tx.update('licenses', next);
    const views = licenseViews(tx, ctx.clock.now());
    if (fields.length > 0) {
      await audit(ctx, tx, { accountId, type: 'license.updated', licenseId: id, data: { fields, source: 'vendor' }, account, view: () => views(next) });
    }
    return views(next);
  });
}

/** `validUntil` (= paidUntil + grace days) must stay a four-digit-year timestamp. */
function requireValidUntilInRange(paidUntil: Timestamp, graceDays: number): void {
  if (!fitsAfterDays(paidUntil, graceDays)) invalid(`paidUntil is too late: with ${graceDays} grace days validUntil would be after 9999-12-31T23:59:59Z`);
}
