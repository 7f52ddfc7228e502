import { LicensingError } from '../_internal/errors.js';
import { audit } from '../_internal/audit.js';
import type { AccountRecord, Timestamp } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import { hasServicePortal } from '../_internal/account.js';
import type { EngineContext } from '../_internal/context.js';
import { now, transact } from '../_internal/context.js';
import { sha256Hex } from '../_internal/hash.js';
import { timestampMs, toTimestamp } from '../_internal/time.js';
import { requireEmail } from '../_internal/validate.js';
import { dropExpiredLinks, insertLink, LINK_MS, LINK_TOKEN, type IssuedLink } from './links.js';
import { readSession, startSession, type SessionAudience } from './tokens.js';

/**
 * Lifetimes of customer portal sessions (docs/decisions.md): the sign-in link lives 15 minutes like
 * the dashboard's; a session ends after 1 hour without a request and 12 hours after sign-in.
 *
 * @example
 * ```ts
 * CUSTOMER_SESSION_LIFETIMES.absoluteMs; // 43200000
 * ```
 */
export const CUSTOMER_SESSION_LIFETIMES = {
  linkMs: LINK_MS,
  idleMs: 3_600_000,
  absoluteMs: 12 * 3_600_000,
  lastSeenResolutionMs: 60_000,
} as const;

/** Portal sessions: `svc_cs_` tokens in `customerSessions`, never valid for the dashboard or the vendor API. */
const CUSTOMER_SESSIONS: SessionAudience = {
  collection: 'customerSessions',
  idPrefix: 'cse',
  tokenPrefix: 'svc_cs_',
  tokenPattern: /^svc_cs_[A-Za-z0-9_-]{43}$/,
  lifetimes: CUSTOMER_SESSION_LIFETIMES,
};

/** A signed-in portal customer: an address within one account. */
export interface CustomerPrincipal {
  accountId: string;
  sessionId: string;
  email: string;
  expiresAt: Timestamp;
}

/** What using a portal link gave: a customer session (its token for the cookie), or why not. */
export type PortalLinkOutcome =
  | { ok: true; accountId: string; email: string; session: { id: string; token: string; expiresAt: Timestamp } }
  | { ok: false; reason: 'unknown' | 'used' | 'expired' | 'no_portal' };

async function portalAccount(tx: StoreTx, accountId: string): Promise<AccountRecord> {
  const account = typeof accountId === 'string' && accountId !== '' ? await tx.get('accounts', accountId) : null;
  if (!hasServicePortal(account)) throw new LicensingError('not_found', 'this account has no customer portal here');
  return account;
}

/**
 * The portal's public facts (the sign-in page's title): the account's name, or `not_found` when
 * the account has no service-hosted portal (mode `custom` or `none`, closed, unknown).
 */
export async function getPortal(ctx: EngineContext, accountId: string): Promise<{ accountId: string; accountName: string; supportEmail: string }> {
  return transact(ctx, async (tx) => {
    const account = await portalAccount(tx, accountId);
    return { accountId: account.id, accountName: account.senderName ?? account.name, supportEmail: account.replyTo ?? account.senderEmail ?? account.ownerEmail };
  }, { readOnly: true });
}

/**
 * A portal sign-in link for `email` when it holds a license of the account (null otherwise, and
 * also for an account without a service-hosted portal: the caller answers the same either way).
 */
export async function requestPortalLink(ctx: EngineContext, accountId: string, email: string): Promise<IssuedLink | null> {
  const address = requireEmail(email);
  return transact(ctx, async (tx) => {
    const account = typeof accountId === 'string' && accountId !== '' ? await tx.get('accounts', accountId) : null;
    if (!hasServicePortal(account)) return null;
    const held = await tx.findMany('licenses', { customerEmail: address });
    if (!held.some((license) => license.accountId === account.id)) return null;
    await dropExpiredLinks(ctx, tx, account.id);
    return insertLink(ctx, tx, account, 'portal_sign_in', address, toTimestamp(ctx.clock.now() + CUSTOMER_SESSION_LIFETIMES.linkMs));
  });
}

/**
 * Uses a portal sign-in link of `accountId` once: marks it used and starts a customer session. A
 * dashboard link, another account's link, a used or expired one gives a reason and writes nothing.
 */
export async function usePortalLink(ctx: EngineContext, accountId: string, token: string): Promise<PortalLinkOutcome> {
  if (typeof token !== 'string' || !LINK_TOKEN.test(token)) return { ok: false, reason: 'unknown' };
  const hash = sha256Hex(token);
  return transact(ctx, async (tx): Promise<PortalLinkOutcome> => {
    const at = ctx.clock.now();
    const link = await tx.findOne('linkTokens', { hash }, { lock: true });
    if (!link || link.purpose !== 'portal_sign_in' || link.accountId !== accountId) return { ok: false, reason: 'unknown' };
    if (link.usedAt !== null) return { ok: false, reason: 'used' };
    if (at >= timestampMs(link.expiresAt)) return { ok: false, reason: 'expired' };
    const account = await tx.get('accounts', accountId);
    if (!hasServicePortal(account)) return { ok: false, reason: 'no_portal' };
    await tx.update('linkTokens', { ...link, usedAt: now(ctx) });
    const session = await startSession(ctx, tx, CUSTOMER_SESSIONS, { accountId, email: link.email }, at);
    await audit(ctx, tx, {
      accountId, type: 'session.signed_in', licenseId: null, account,
      data: { session: session.id, email: link.email, role: 'customer', via: 'portal_link' },
      actor: { kind: 'customer', email: link.email, apiKeyId: null },
    });
    return { ok: true, accountId, email: link.email, session };
  });
}

/**
 * The customer of a portal session token for the portal of `accountId`, or null: unknown, ended,
 * another account's, or the account no longer has a service-hosted portal.
 */
export async function authenticateCustomer(ctx: EngineContext, accountId: string, token: string): Promise<CustomerPrincipal | null> {
  return readSession(ctx, CUSTOMER_SESSIONS, token, async (tx, session): Promise<CustomerPrincipal | null> => {
    if (session.accountId !== accountId || !hasServicePortal(await tx.get('accounts', accountId))) return null;
    return { accountId, sessionId: session.id, email: session.email, expiresAt: session.expiresAt };
  });
}

/** Ends a customer session (portal sign-out). */
export async function endCustomerSession(ctx: EngineContext, sessionId: string): Promise<void> {
  await transact(ctx, async (tx) => {
    if (typeof sessionId === 'string' && (await tx.get('customerSessions', sessionId))) await tx.delete('customerSessions', sessionId);
  });
}
