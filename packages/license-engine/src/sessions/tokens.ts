import type { CustomerSessionRecord, SessionRecord } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import type { Timestamp } from '../_internal/timestamp.js';
import type { EngineContext } from '../_internal/context.js';
import { now, readMostly } from '../_internal/context.js';
import { sha256Hex } from '../_internal/hash.js';
import { timestampMs, toTimestamp } from '../_internal/time.js';

/**
 * Who a session is for: dashboard users (`sessions`, `svc_ses_` tokens) or portal customers
 * (`customerSessions`, `svc_cs_` tokens). Both are minted, stored (only the token's SHA-256),
 * ended and touched the same way by the helpers below; only these facts differ.
 */
export interface SessionAudience {
  collection: 'sessions' | 'customerSessions';
  idPrefix: 'ses' | 'cse';
  /** What every token of this audience starts with. */
  tokenPrefix: string;
  /** The whole token: the prefix and 43 base64url characters (32 random bytes). */
  tokenPattern: RegExp;
  lifetimes: { idleMs: number; absoluteMs: number; lastSeenResolutionMs: number };
}

type SessionRow = SessionRecord | CustomerSessionRecord;

/** A session just started: its token (for the cookie, never stored) and when it ends at the latest. */
export interface StartedSession {
  id: string;
  token: string;
  expiresAt: Timestamp;
}

/** A new random token with `prefix` (32 random bytes, base64url) and the SHA-256 the store keeps. */
export function mintToken(ctx: EngineContext, prefix: string): { token: string; hash: string } {
  const token = prefix + Buffer.from(ctx.random.bytes(32).slice(0, 32)).toString('base64url');
  return { token, hash: sha256Hex(token) };
}

/** True while the session has neither idled out nor reached its absolute end. */
export function isLive(audience: SessionAudience, session: SessionRow, at: number): boolean {
  return at < timestampMs(session.expiresAt) && at - timestampMs(session.lastSeenAt) < audience.lifetimes.idleMs;
}

/**
 * Starts a session for `email` inside the caller's transaction; the address's sessions that have
 * ended are removed as the new one starts.
 */
export async function startSession(
  ctx: EngineContext,
  tx: StoreTx,
  audience: SessionAudience,
  owner: { accountId: string; email: string },
  at: number,
): Promise<StartedSession> {
  const { accountId, email } = owner;
  for (const old of await tx.findMany(audience.collection, { accountId, email })) {
    if (!isLive(audience, old, at)) await tx.delete(audience.collection, old.id);
  }
  const { token, hash } = mintToken(ctx, audience.tokenPrefix);
  const session: SessionRow = {
    id: ctx.ids.next(audience.idPrefix),
    accountId,
    email,
    hash,
    createdAt: now(ctx),
    lastSeenAt: now(ctx),
    expiresAt: toTimestamp(at + audience.lifetimes.absoluteMs),
  };
  await tx.insert(audience.collection, session);
  return { id: session.id, token, expiresAt: session.expiresAt };
}

/**
 * The principal of a session token, or null when the token is malformed or unknown, the session
 * has ended, or `admit` refuses it (an account closed, a member removed). Records `lastSeenAt` to
 * within the audience's resolution, so most requests only read.
 */
export async function readSession<P>(
  ctx: EngineContext,
  audience: SessionAudience,
  token: unknown,
  admit: (tx: StoreTx, session: SessionRow) => Promise<P | null>,
): Promise<P | null> {
  if (typeof token !== 'string' || !audience.tokenPattern.test(token)) return null;
  const hash = sha256Hex(token);
  return readMostly(ctx, async (tx, write): Promise<P | null | undefined> => {
    const session = await tx.findOne(audience.collection, { hash });
    const at = ctx.clock.now();
    if (!session || !isLive(audience, session, at)) return null;
    const principal = await admit(tx, session);
    if (principal === null) return null;
    if (at - timestampMs(session.lastSeenAt) > audience.lifetimes.lastSeenResolutionMs) {
      if (!write) return undefined;
      await tx.update(audience.collection, { ...session, lastSeenAt: now(ctx) });
    }
    return principal;
  });
}
