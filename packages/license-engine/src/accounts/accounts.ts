import { USABLE_STATUSES } from '@svc-licensing/cert-format';
import { LicensingError } from '../_internal/errors.js';
import type { AccountRecord, Actor, CustomerPortal, Locale } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import { audit } from '../_internal/audit.js';
import { insertApiKey } from './api-keys.js';
import { insertReopenLink, type IssuedLink } from '../sessions/links.js';
import { dropAccountAccess } from '../sessions/operator.js';
import { CLOSURE_DAYS, loadAccount } from '../_internal/account.js';
import type { EngineContext } from '../_internal/context.js';
import { now, servicePlanOf, transact } from '../_internal/context.js';
import { addDays, timestampMs } from '../_internal/time.js';
import { asObject, invalid, requireEmail, requireInt, requireString } from '../_internal/validate.js';
import type { AccountView, ApiKeyCreatedView, BillingView, UsageView } from '../_internal/views.js';
import { accountView } from '../_internal/record-views.js';
import { OPERATOR_ACTOR } from '../_internal/audit-records.js';

export async function createAccount(
  ctx: EngineContext,
  input: { name: string; ownerEmail: string; servicePlan?: string },
): Promise<{ account: AccountView; apiKey: ApiKeyCreatedView }> {
  const body = asObject(input);
  const name = requireString(body.name, 'name', 200);
  const ownerEmail = requireEmail(body.ownerEmail, 'ownerEmail');
  const servicePlan = body.servicePlan === undefined ? 'free' : requireString(body.servicePlan, 'servicePlan', 50);
  if (!ctx.servicePlans[servicePlan]) invalid(`servicePlan must be one of ${Object.keys(ctx.servicePlans).join(', ')}`);
  return transact(ctx, async (tx) => {
    const at = now(ctx);
    const account: AccountRecord = {
      id: ctx.ids.next('acc'),
      name,
      ownerEmail,
      servicePlan,
      senderName: null,
      senderEmail: null,
      replyTo: null,
      defaultLocale: 'en',
      customerPortal: { mode: 'svc' },
      status: 'open',
      closedAt: null,
      createdAt: at,
      updatedAt: at,
    };
    await tx.insert('accounts', account);
    const apiKey = await insertApiKey(ctx, tx, account.id, 'default', OPERATOR_ACTOR);
    return { account: accountView(account), apiKey };
  });
}

export async function getAccount(ctx: EngineContext, accountId: string): Promise<AccountView> {
  return transact(ctx, async (tx) => accountView(await loadAccount(tx, accountId)));
}

function optionalText(value: unknown, field: string, max: number): string | null {
  if (value === null || value === '') return null;
  return requireString(value, field, max);
}

function parsePortal(value: unknown): CustomerPortal {
  const portal = asObject(value, 'customerPortal');
  if (portal.mode === 'svc' || portal.mode === 'none') return { mode: portal.mode };
  if (portal.mode === 'custom') {
    const url = typeof portal.url === 'string' ? safeUrl(portal.url) : null;
    if (!url || url.protocol !== 'https:') invalid('customerPortal.url must be an https URL');
    return { mode: 'custom', url: url.href };
  }
  return invalid('customerPortal.mode must be svc, custom or none');
}

function safeUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** `PATCH /account`: any of name, senderName, senderEmail, replyTo (empty or null: the sender), defaultLocale, customerPortal. */
export async function updateAccount(ctx: EngineContext, accountId: string, patch: Record<string, unknown>, by: Actor | null = null): Promise<AccountView> {
  const body = asObject(patch);
  const changes: Partial<AccountRecord> = {};
  if (body.name !== undefined) changes.name = requireString(body.name, 'name', 200);
  if (body.senderName !== undefined) changes.senderName = optionalText(body.senderName, 'senderName', 100);
  if (body.senderEmail !== undefined) changes.senderEmail = body.senderEmail === null || body.senderEmail === '' ? null : requireEmail(body.senderEmail, 'senderEmail');
  if (body.replyTo !== undefined) changes.replyTo = body.replyTo === null || body.replyTo === '' ? null : requireEmail(body.replyTo, 'replyTo');
  if (body.defaultLocale !== undefined) {
    if (body.defaultLocale !== 'en' && body.defaultLocale !== 'fr') invalid('defaultLocale must be en or fr');
    changes.defaultLocale = body.defaultLocale as Locale;
  }
  if (body.customerPortal !== undefined) changes.customerPortal = parsePortal(body.customerPortal);
  if (body.portalReleaseLimit !== undefined) changes.portalReleaseLimit = requireInt(body.portalReleaseLimit, 'portalReleaseLimit', 0, 100);
  return transact(ctx, async (tx) => {
    // Locked: the account's webhook subscriptions change under its lock, and a write of a stale copy would lose them.
    const account = await loadAccount(tx, accountId, true);
    const next = { ...account, ...changes, updatedAt: now(ctx) };
    await tx.update('accounts', next);
    // Audited with who changed what (the fields, not their values); the portal settings are among them.
    await audit(ctx, tx, { accountId, type: 'account.updated', licenseId: null, data: { fields: Object.keys(changes) }, actor: by, account: next });
    return accountView(next);
  });
}

/** Changes the account's service plan (billing, owner); audited as `account.plan_changed`. */
export async function changeServicePlan(ctx: EngineContext, accountId: string, servicePlan: string, by: Actor | null = null): Promise<AccountView> {
  if (typeof servicePlan !== 'string' || !ctx.servicePlans[servicePlan]) invalid(`servicePlan must be one of ${Object.keys(ctx.servicePlans).join(', ')}`);
  return transact(ctx, async (tx) => {
    const account = await loadAccount(tx, accountId, true);
    if (account.servicePlan === servicePlan) return accountView(account);
    const next = { ...account, servicePlan, updatedAt: now(ctx) };
    await tx.update('accounts', next);
    await audit(ctx, tx, {
      accountId, type: 'account.plan_changed', licenseId: null, data: { from: account.servicePlan, to: servicePlan }, actor: by, account: next, view: () => accountView(next),
    });
    return accountView(next);
  });
}

/** Licenses in a usable status: what the service plan's license limit counts. */
export async function countActiveLicenses(tx: StoreTx, accountId: string): Promise<number> {
  let total = 0;
  for (const status of USABLE_STATUSES) total += await tx.count('licenses', { accountId, status });
  return total;
}

export async function getUsage(ctx: EngineContext, accountId: string): Promise<UsageView> {
  return transact(ctx, async (tx) => {
    const account = await loadAccount(tx, accountId);
    const limits = servicePlanOf(ctx, account.servicePlan);
    const activeLicenses = await countActiveLicenses(tx, accountId);
    const products = await tx.count('products', { accountId });
    const over = (n: number, limit: number | null) => limit !== null && n > limit;
    return {
      plan: account.servicePlan,
      activeLicenses,
      licenseLimit: limits.licenseLimit,
      products,
      productLimit: limits.productLimit,
      overLimit: over(activeLicenses, limits.licenseLimit) || over(products, limits.productLimit),
    };
  });
}

/**
 * Billing as a self-hosted instance knows it: the engine takes no payments for the service, so
 * the operator sets the plan (`changeServicePlan`) and there is no billing interval or period end
 * (both null). `status` is `active` while the account is open and `canceled` once it is closed,
 * `cancelAt` then being the closure time (docs/decisions.md).
 */
export async function getBilling(ctx: EngineContext, accountId: string): Promise<BillingView> {
  return transact(ctx, async (tx) => {
    const account = await loadAccount(tx, accountId);
    return {
      plan: account.servicePlan,
      interval: null,
      status: account.status === 'open' ? 'active' : 'canceled',
      currentPeriodEnd: null,
      cancelAt: account.closedAt,
    };
  });
}

/**
 * Closes the account: API keys, sessions and unused links revoked at once; new activations
 * refused; payments still applied. Returns the reopen link to e-mail the owner (valid until the
 * purge, `CLOSURE_DAYS` later); `reopenLink` is null when the account was already closed.
 */
export async function closeAccount(ctx: EngineContext, accountId: string): Promise<{ account: AccountView; reopenLink: IssuedLink | null }> {
  return transact(ctx, async (tx) => {
    const account = await loadAccount(tx, accountId, true);
    if (account.status === 'closed') return { account: accountView(account), reopenLink: null };
    const at = now(ctx);
    const next: AccountRecord = { ...account, status: 'closed', closedAt: at, updatedAt: at };
    await tx.update('accounts', next);
    for (const key of await tx.findMany('apiKeys', { accountId })) await tx.delete('apiKeys', key.id);
    await dropAccountAccess(tx, accountId);
    const reopenLink = await insertReopenLink(ctx, tx, next);
    return { account: accountView(next), reopenLink };
  });
}

/** Reopens a closed account within 30 days of closure (later: `conflict`). API keys stay revoked. */
export async function reopenAccount(ctx: EngineContext, accountId: string): Promise<AccountView> {
  return transact(ctx, async (tx) => {
    const account = await loadAccount(tx, accountId, true);
    if (account.status === 'open') return accountView(account);
    if (account.closedAt && ctx.clock.now() >= timestampMs(addDays(account.closedAt, CLOSURE_DAYS))) {
      throw new LicensingError('conflict', `the account was closed more than ${CLOSURE_DAYS} days ago`);
    }
    const next: AccountRecord = { ...account, status: 'open', closedAt: null, updatedAt: now(ctx) };
    await tx.update('accounts', next);
    return accountView(next);
  });
}
