import { LicensingError } from './errors.js';
import type { AccountRecord, LinkPurpose, Role, SessionRecord, Timestamp } from './records.js';
import type { StoreTx } from './store.js';
import type { EngineContext } from './_internal/context.js';
import { now, readMostly, transact } from './_internal/context.js';
import { sha256Hex } from './_internal/hash.js';
import { addDays, timestampMs, toTimestamp } from './_internal/time.js';
import { requireEmail } from './_internal/validate.js';
import { openCursor, sealCursor } from './_internal/cursor.js';
import { CLOSURE_DAYS, loadAccount } from './accounts.js';
import { roleOf } from './members.js';
import type { ListView, SessionView } from './views.js';
import { sessionView } from './views.js';

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
  linkMs: 15 * 60_000,
  idleMs: 12 * 3_600_000,
  absoluteMs: 7 * 86_400_000,
  /** `lastSeenAt` is written only when it would move by more than this, so most requests only read. */
  lastSeenResolutionMs: 60_000,
} as const;

const LINK_PREFIX = 'svc_lt_';
const OPERATOR_PREFIX = 'svc_op_';
const SESSION_PREFIX = 'svc_ses_';
const RANDOM_TOKEN = /^svc_(lt|ses)_[A-Za-z0-9_-]{43}$/;

/** The signed-in principal of a session, as the server's pipeline needs it. */
export interface SessionPrincipal {
  accountId: string;
  sessionId: string;
  email: string;
  role: Role;
  expiresAt: Timestamp;
}

/** A one-time link just issued: the token (shown once, never stored) and where it leads. */
export interface IssuedLink {
  token: string;
  purpose: LinkPurpose;
  accountId: string;
  accountName: string;
  email: string;
  locale: AccountRecord['defaultLocale'];
  expiresAt: Timestamp;
}

/**
 * What using a link gave: a new session (its token for the cookie), or why not. `used`, `expired`
 * and `unknown` are told apart only to word the page; none of them sets anything.
 */
export type LinkOutcome =
  | { ok: true; purpose: LinkPurpose; accountId: string; email: string; session: { id: string; token: string; expiresAt: Timestamp } }
  | { ok: false; reason: 'unknown' | 'used' | 'expired' | 'account_closed' | 'account_open' };

export function randomToken(ctx: EngineContext, prefix: string): string {
  return prefix + Buffer.from(ctx.random.bytes(32).slice(0, 32)).toString('base64url');
}

/** Inserts a one-time link token (only its hash) inside the caller's transaction. */
export async function insertLink(
  ctx: EngineContext,
  tx: StoreTx,
  account: AccountRecord,
  purpose: LinkPurpose,
  email: string,
  expiresAt: Timestamp,
): Promise<IssuedLink> {
  const token = randomToken(ctx, LINK_PREFIX);
  await tx.insert('linkTokens', {
    id: ctx.ids.next('ltk'),
    accountId: account.id,
    purpose,
    email,
    hash: sha256Hex(token),
    createdAt: now(ctx),
    expiresAt,
    usedAt: null,
  });
  return { token, purpose, accountId: account.id, accountName: account.name, email, locale: account.defaultLocale, expiresAt };
}

/** Deletes the account's link tokens that have expired (they only serve to recognise a reuse until then). */
export async function dropExpiredLinks(ctx: EngineContext, tx: StoreTx, accountId: string): Promise<void> {
  const at = ctx.clock.now();
  for (const link of await tx.findMany('linkTokens', { accountId })) {
    if (timestampMs(link.expiresAt) <= at) await tx.delete('linkTokens', link.id);
  }
}

/** The reopen link of a closed account, inside the closing transaction; valid until the purge. */
export async function insertReopenLink(ctx: EngineContext, tx: StoreTx, account: AccountRecord): Promise<IssuedLink> {
  return insertLink(ctx, tx, account, 'reopen', account.ownerEmail, addDays(account.closedAt ?? now(ctx), CLOSURE_DAYS));
}

/**
 * Issues a sign-in link for `email` (default: the owner) of an open account. `not_found` when the
 * account does not exist or the address is neither its owner nor a member; `account_closed`.
 */
export async function issueSignInLink(ctx: EngineContext, accountId: string, options: { email?: string } = {}): Promise<IssuedLink> {
  return transact(ctx, async (tx) => {
    const account = await loadAccount(tx, accountId);
    if (account.status !== 'open') throw new LicensingError('account_closed', 'the account is closed; the owner reopens it with the e-mailed link');
    const email = options.email === undefined ? account.ownerEmail : requireEmail(options.email);
    if ((await roleOf(tx, account, email)) === null) throw new LicensingError('not_found', 'no owner or member with this e-mail address');
    await dropExpiredLinks(ctx, tx, accountId);
    return insertLink(ctx, tx, account, 'sign_in', email, toTimestamp(ctx.clock.now() + SESSION_LIFETIMES.linkMs));
  });
}

/**
 * `POST /session/link`: a sign-in link for each open account whose owner or member `email` is;
 * empty for any other address (the caller answers the same either way).
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
      if (!account || account.status !== 'open') continue;
      await dropExpiredLinks(ctx, tx, accountId);
      links.push(await insertLink(ctx, tx, account, 'sign_in', address, expiresAt));
    }
    return links;
  });
}

/**
 * A sign-in link the operator issues without the store (`svc owner sign-in-link` beside a running
 * embedded server, which holds the store's lock): the claim (account, expiry, nonce) sealed with
 * the master key. Nothing is stored until it is used; using it records its hash, so it works once.
 *
 * @example
 * ```ts
 * const { token } = sealOperatorSignInLink({ secrets, clock: systemClock, random: cryptoRandom }, 'acc_01...');
 * ```
 */
export function sealOperatorSignInLink(
  deps: Pick<EngineContext, 'secrets' | 'clock' | 'random'>,
  accountId: string,
): { token: string; expiresAt: Timestamp } {
  const expiresMs = deps.clock.now() + SESSION_LIFETIMES.linkMs;
  const claim = JSON.stringify({ a: accountId, x: expiresMs, n: Buffer.from(deps.random.bytes(16).slice(0, 16)).toString('base64url') });
  return { token: OPERATOR_PREFIX + deps.secrets.encrypt(new TextEncoder().encode(claim)), expiresAt: toTimestamp(expiresMs) };
}

/** The claim of an operator link, or null when it does not open under this master key. */
function openOperatorClaim(ctx: EngineContext, token: string): { accountId: string; expiresMs: number } | null {
  try {
    const claim = JSON.parse(new TextDecoder().decode(ctx.secrets.decrypt(token.slice(OPERATOR_PREFIX.length)))) as { a?: unknown; x?: unknown };
    if (typeof claim.a !== 'string' || typeof claim.x !== 'number') return null;
    return { accountId: claim.a, expiresMs: claim.x };
  } catch {
    return null;
  }
}

/**
 * Uses a one-time link of `purpose`: marks it used and starts a session for its address (a reopen
 * link first reopens the account). Any failure is a value; nothing is written then.
 */
export async function useLink(ctx: EngineContext, token: string, purpose: LinkPurpose): Promise<LinkOutcome> {
  if (typeof token !== 'string' || token.length > 1024) return { ok: false, reason: 'unknown' };
  const operator = purpose === 'sign_in' && token.startsWith(OPERATOR_PREFIX) ? openOperatorClaim(ctx, token) : null;
  if (operator === null && !(RANDOM_TOKEN.test(token) && token.startsWith(LINK_PREFIX))) return { ok: false, reason: 'unknown' };
  const hash = sha256Hex(token);
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
        id: ctx.ids.next('ltk'), accountId: account.id, purpose: 'sign_in', email: account.ownerEmail, hash,
        createdAt: now(ctx), expiresAt: toTimestamp(operator.expiresMs), usedAt: null,
      };
      await tx.insert('linkTokens', link);
    }
    if (!link || link.purpose !== purpose) return { ok: false, reason: 'unknown' };
    if (at >= timestampMs(link.expiresAt)) return { ok: false, reason: 'expired' };
    let account = await loadAccount(tx, link.accountId, true);
    if (purpose === 'reopen') {
      if (account.status === 'open') return { ok: false, reason: 'account_open' };
      account = { ...account, status: 'open', closedAt: null, updatedAt: now(ctx) };
      await tx.update('accounts', account);
    } else if (account.status !== 'open') {
      return { ok: false, reason: 'account_closed' };
    }
    if ((await roleOf(tx, account, link.email)) === null) return { ok: false, reason: 'unknown' };
    await tx.update('linkTokens', { ...link, usedAt: now(ctx) });
    // Sessions of this address that have ended are removed as a new one starts.
    for (const old of await tx.findMany('sessions', { accountId: account.id, email: link.email })) {
      if (!isLive(old, at)) await tx.delete('sessions', old.id);
    }
    const sessionToken = randomToken(ctx, SESSION_PREFIX);
    const session: SessionRecord = {
      id: ctx.ids.next('ses'),
      accountId: account.id,
      email: link.email,
      hash: sha256Hex(sessionToken),
      createdAt: now(ctx),
      lastSeenAt: now(ctx),
      expiresAt: toTimestamp(at + SESSION_LIFETIMES.absoluteMs),
    };
    await tx.insert('sessions', session);
    return { ok: true, purpose, accountId: account.id, email: link.email, session: { id: session.id, token: sessionToken, expiresAt: session.expiresAt } };
  });
}

function isLive(session: SessionRecord, at: number): boolean {
  return at < timestampMs(session.expiresAt) && at - timestampMs(session.lastSeenAt) < SESSION_LIFETIMES.idleMs;
}

/**
 * The principal of a session token (the `svc_session` cookie), or null when it is unknown, has
 * ended (idle or absolute), belongs to a closed account or to a member since removed. Records
 * `lastSeenAt` to within `SESSION_LIFETIMES.lastSeenResolutionMs`.
 */
export async function authenticateSession(ctx: EngineContext, token: string): Promise<SessionPrincipal | null> {
  if (typeof token !== 'string' || !RANDOM_TOKEN.test(token) || !token.startsWith(SESSION_PREFIX)) return null;
  const hash = sha256Hex(token);
  return readMostly(ctx, async (tx, write): Promise<SessionPrincipal | null | undefined> => {
    const session = await tx.findOne('sessions', { hash });
    const at = ctx.clock.now();
    if (!session || !isLive(session, at)) return null;
    const account = await tx.get('accounts', session.accountId);
    if (!account || account.status !== 'open') return null;
    const role = await roleOf(tx, account, session.email);
    if (role === null) return null;
    if (at - timestampMs(session.lastSeenAt) > SESSION_LIFETIMES.lastSeenResolutionMs) {
      if (!write) return undefined;
      await tx.update('sessions', { ...session, lastSeenAt: now(ctx) });
    }
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
      data: page.data.filter((s) => isLive(s, at)).map((s) => sessionView(s, s.email === account.ownerEmail ? 'owner' : 'member')),
      nextCursor: sealCursor(ctx, scope, page.nextCursor),
    };
  });
}

/** Ends a session of the account (sign-out, or the owner revoking it); `not_found` for another account's. */
export async function revokeSession(ctx: EngineContext, accountId: string, sessionId: string): Promise<void> {
  await transact(ctx, async (tx) => {
    const session = typeof sessionId === 'string' ? await tx.get('sessions', sessionId) : null;
    if (!session || session.accountId !== accountId) throw new LicensingError('not_found', `session ${String(sessionId)} not found`);
    await tx.delete('sessions', session.id);
  });
}

/** Deletes every dashboard and customer portal session and every link of the account inside the caller's transaction (closure). */
export async function dropAccountAccess(tx: StoreTx, accountId: string): Promise<void> {
  for (const session of await tx.findMany('sessions', { accountId })) await tx.delete('sessions', session.id);
  for (const link of await tx.findMany('linkTokens', { accountId })) await tx.delete('linkTokens', link.id);
  // Customer portal sessions end too (a reopened account's customers sign in again).
  for (const session of await tx.findMany('customerSessions', { accountId })) await tx.delete('customerSessions', session.id);
}
