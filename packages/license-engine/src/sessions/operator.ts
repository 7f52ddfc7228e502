import { LicensingError } from '../_internal/errors.js';
import type { Actor, LinkPurpose, Role, Timestamp } from '../_internal/records.js';
import { audit } from '../_internal/audit.js';
import type { StoreTx } from '../_internal/store.js';
import type { EngineContext } from '../_internal/context.js';
import { now, transact } from '../_internal/context.js';
import { sha256Hex } from '../_internal/hash.js';
import { timestampMs, toTimestamp } from '../_internal/time.js';
import { requireEmail } from '../_internal/validate.js';
import { openCursor, sealCursor } from '../_internal/cursor.js';
import { loadAccount, roleOf } from '../_internal/account.js';
import type { ListView, SessionView } from '../_internal/views.js';
import { sessionView } from '../_internal/record-views.js';
import { dropExpiredLinks, insertLink, insertRequestedReopenLink, LINK_MS, LINK_TOKEN, reopenDeadline, type IssuedLink } from './links.js';
import { openOperatorClaim, operatorLinkHash } from './operator-link.js';
import { isLive, readSession, startSession, type SessionAudience } from './tokens.js';

/**
 * Lifetimes of dashboard sign-in (docs/decisions.md): a sign-in link lives 15 minutes; a session
 * ends after 12 hours without a request (idle) and 7 days after sign-in whatever its use (absolute).
 *
 * @example
 * ```ts
 * SESSION_LIFETIMES.idleMs; // 43200000
 * ```
 */
export const SESSION_LIFETIMES = {
  linkMs: LINK_MS,
  idleMs: 12 * 3_600_000,
  absoluteMs: 7 * 86_400_000,
  /** `lastSeenAt` is written only when it would move by more than this, so most requests only read. */
  lastSeenResolutionMs: 60_000,
} as const;

/** Dashboard sessions: `svc_ses_` tokens in `sessions`. */
const OPERATOR_SESSIONS: SessionAudience = {
  collection: 'sessions',
  idPrefix: 'ses',
  tokenPrefix: 'svc_ses_',
  tokenPattern: /^svc_ses_[A-Za-z0-9_-]{43}$/,
  lifetimes: SESSION_LIFETIMES,
};

/** The signed-in principal of a session, as the server's pipeline needs it. */
export interface SessionPrincipal {
  accountId: string;
  sessionId: string;
  email: string;
  role: Role;
  expiresAt: Timestamp;
}

/**
 * What using a link gave: a new session (its token for the cookie), or why not. `used`, `expired`
 * and `unknown` are told apart only to word the page; none of them sets anything.
 */
export type LinkOutcome =
  | { ok: true; purpose: LinkPurpose; accountId: string; email: string; session: { id: string; token: string; expiresAt: Timestamp } }
  | { ok: false; reason: 'unknown' | 'used' | 'expired' | 'account_closed' | 'account_open' };

/**
 * Issues a sign-in link for `email` (default: the owner) of an open account. `not_found` when the
 * account does not exist or the address is neither its owner nor a member; `account_closed`.
 */
export async function issueSignInLink(ctx: EngineContext, accountId: string, options: { email?: string } = {}): Promise<IssuedLink> {
  return transact(ctx, async (tx) => {
    const account = await loadAccount(tx, accountId);
    if (account.status !== 'open') throw new LicensingError('account_closed', 'the account is closed; the owner reopens it with the e-mailed link (a new one is asked for on the sign-in page, or printed by `owner reopen-link`)');
    const email = options.email === undefined ? account.ownerEmail : requireEmail(options.email);
    if ((await roleOf(tx, account, email)) === null) throw new LicensingError('not_found', 'no owner or member with this e-mail address');
    await dropExpiredLinks(ctx, tx, accountId);
    return insertLink(ctx, tx, account, 'sign_in', email, toTimestamp(ctx.clock.now() + SESSION_LIFETIMES.linkMs));
  });
}

/**
 * `POST /session/link`: a sign-in link for each open account whose owner or member `email` is, and
 * a reopen link (`purpose: 'reopen'`) for each account closed less than 30 days ago whose owner it
 * is; empty for any other address (the caller answers the same either way).
 */
export async function requestSignInLinks(ctx: EngineContext, email: string): Promise<IssuedLink[]> {
  const address = requireEmail(email);
  return transact(ctx, async (tx) => {
    const accountIds = new Set<string>();
    for (const account of await tx.findMany('accounts', { ownerEmail: address })) accountIds.add(account.id);
    for (const member of await tx.findMany('members', { email: address })) accountIds.add(member.accountId);
    const links: IssuedLink[] = [];
    const expiresAt = toTimestamp(ctx.clock.now() + SESSION_LIFETIMES.linkMs);
    for (const accountId of accountIds) {
      const account = await tx.get('accounts', accountId);
      if (!account) continue;
      if (account.status !== 'open') {
        // The owner of a closed account who lost the e-mailed reopen link gets a new one (30 days).
        if (account.status !== 'closed' || account.ownerEmail !== address) continue;
        await dropExpiredLinks(ctx, tx, accountId);
        const reopen = await insertRequestedReopenLink(ctx, tx, account);
        if (reopen) links.push(reopen);
        continue;
      }
      await dropExpiredLinks(ctx, tx, accountId);
      links.push(await insertLink(ctx, tx, account, 'sign_in', address, expiresAt));
    }
    return links;
  });
}

/**
 * Uses a one-time link of `purpose`: marks it used and starts a session for its address (a reopen
 * link first reopens the account). Any failure is a value; nothing is written then.
 */
export async function useLink(ctx: EngineContext, token: string, purpose: LinkPurpose): Promise<LinkOutcome> {
  if (typeof token !== 'string' || token.length > 1024) return { ok: false, reason: 'unknown' };
  const operator = purpose === 'sign_in' || purpose === 'reopen' ? openOperatorClaim(ctx, token, purpose) : null;
  if (operator === null && !LINK_TOKEN.test(token)) return { ok: false, reason: 'unknown' };
  // An operator link is used once per claim: its use is recorded under the claim's nonce, not the token's text.
  const hash = operator === null ? sha256Hex(token) : operatorLinkHash(operator);
  return transact(ctx, async (tx): Promise<LinkOutcome> => {
    const at = ctx.clock.now();
    let link = await tx.findOne('linkTokens', { hash }, { lock: true });
    // A link of another kind (a reopen link posted to /sign-in, a portal link) is unknown here, used or not.
    if (link && link.purpose !== purpose) return { ok: false, reason: 'unknown' };
    if (link && link.usedAt !== null) return { ok: false, reason: 'used' };
    if (operator !== null && link === null) {
      if (at >= operator.expiresMs) return { ok: false, reason: 'expired' };
      const account = await tx.get('accounts', operator.accountId);
      if (!account) return { ok: false, reason: 'unknown' };
      link = {
        id: ctx.ids.next('ltk'), accountId: account.id, purpose, email: account.ownerEmail, hash,
        createdAt: now(ctx), expiresAt: toTimestamp(operator.expiresMs), usedAt: null,
      };
      await tx.insert('linkTokens', link);
    }
    if (!link || link.purpose !== purpose) return { ok: false, reason: 'unknown' };
    if (at >= timestampMs(link.expiresAt)) return { ok: false, reason: 'expired' };
    let account = await loadAccount(tx, link.accountId, true);
    if (purpose === 'reopen') {
      if (account.status === 'open') return { ok: false, reason: 'account_open' };
      // Whatever link it is (the operator's is not bounded by the closure), only within the 30 days.
      if (at >= timestampMs(reopenDeadline(ctx, account))) return { ok: false, reason: 'expired' };
      account = { ...account, status: 'open', closedAt: null, updatedAt: now(ctx) };
      await tx.update('accounts', account);
    } else if (account.status !== 'open') {
      return { ok: false, reason: 'account_closed' };
    }
    const role = await roleOf(tx, account, link.email);
    if (role === null) return { ok: false, reason: 'unknown' };
    await tx.update('linkTokens', { ...link, usedAt: now(ctx) });
    const session = await startSession(ctx, tx, OPERATOR_SESSIONS, { accountId: account.id, email: link.email }, at);
    await audit(ctx, tx, {
      accountId: account.id, type: 'session.signed_in', licenseId: null, account,
      data: { session: session.id, email: link.email, role, via: operator === null ? purpose : `operator_${purpose}` },
      actor: { kind: role, email: link.email, apiKeyId: null },
    });
    return { ok: true, purpose, accountId: account.id, email: link.email, session };
  });
}

/**
 * The principal of a session token (the `svc_session` cookie), or null when it is unknown, has
 * ended (idle or absolute), belongs to a closed account or to a member since removed. Records
 * `lastSeenAt` to within `SESSION_LIFETIMES.lastSeenResolutionMs`.
 */
export async function authenticateSession(ctx: EngineContext, token: string): Promise<SessionPrincipal | null> {
  return readSession(ctx, OPERATOR_SESSIONS, token, async (tx, session): Promise<SessionPrincipal | null> => {
    const account = await tx.get('accounts', session.accountId);
    if (!account || account.status !== 'open') return null;
    const role = await roleOf(tx, account, session.email);
    if (role === null) return null;
    return { accountId: account.id, sessionId: session.id, email: session.email, role, expiresAt: session.expiresAt };
  });
}

/** The account's sessions that have not ended, newest first. */
export async function listSessions(ctx: EngineContext, accountId: string, options: { cursor?: string | null } = {}): Promise<ListView<SessionView>> {
  const scope = ['sessions', accountId] as const;
  const cursor = openCursor(ctx, scope, options.cursor);
  return transact(ctx, async (tx) => {
    const account = await loadAccount(tx, accountId);
    const at = ctx.clock.now();
    const page = await tx.page('sessions', { where: { accountId }, cursor, limit: 50, order: 'desc' });
    return {
      data: page.data.filter((s) => isLive(OPERATOR_SESSIONS, s, at)).map((s) => sessionView(s, s.email === account.ownerEmail ? 'owner' : 'member')),
      nextCursor: sealCursor(ctx, scope, page.nextCursor),
    };
  });
}

/** Ends a session of the account (sign-out, or the owner revoking it), audited as `session.revoked` by `by`; `not_found` for another account's. */
export async function revokeSession(ctx: EngineContext, accountId: string, sessionId: string, by: Actor | null = null): Promise<void> {
  await transact(ctx, async (tx) => {
    const session = typeof sessionId === 'string' ? await tx.get('sessions', sessionId) : null;
    if (!session || session.accountId !== accountId) throw new LicensingError('not_found', `session ${String(sessionId)} not found`);
    await tx.delete('sessions', session.id);
    await audit(ctx, tx, { accountId, type: 'session.revoked', licenseId: null, data: { session: session.id, email: session.email }, actor: by });
  });
}

/** Deletes every dashboard and customer portal session and every link of the account inside the caller's transaction (closure). */
export async function dropAccountAccess(tx: StoreTx, accountId: string): Promise<void> {
  for (const session of await tx.findMany('sessions', { accountId })) await tx.delete('sessions', session.id);
  for (const link of await tx.findMany('linkTokens', { accountId })) await tx.delete('linkTokens', link.id);
  // Customer portal sessions end too (a reopened account's customers sign in again).
  for (const session of await tx.findMany('customerSessions', { accountId })) await tx.delete('customerSessions', session.id);
}
