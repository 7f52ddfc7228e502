import type { AccountRecord, LinkPurpose, Timestamp } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import { CLOSURE_DAYS } from '../_internal/account.js';
import type { EngineContext } from '../_internal/context.js';
import { now } from '../_internal/context.js';
import { addDays, timestampMs, toTimestamp } from '../_internal/time.js';
import { mintToken } from './tokens.js';

/** How long a one-time sign-in link lives, for the dashboard and the portal alike: 15 minutes. */
export const LINK_MS = 15 * 60_000;

/**
 * How long a reopen link asked for again lives (the sign-in page's request, the operator's
 * `owner reopen-link`): a day, and never past the end of the 30 days the account can be reopened.
 */
export const REOPEN_REQUEST_MS = 24 * 3_600_000;

/** The prefix of every one-time link token; a link token is it and 43 base64url characters. */
export const LINK_PREFIX = 'svc_lt_';
export const LINK_TOKEN = /^svc_lt_[A-Za-z0-9_-]{43}$/;

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

/** Inserts a one-time link token (only its hash) inside the caller's transaction. */
export async function insertLink(
  ctx: EngineContext,
  tx: StoreTx,
  account: AccountRecord,
  purpose: LinkPurpose,
  email: string,
  expiresAt: Timestamp,
): Promise<IssuedLink> {
  const { token, hash } = mintToken(ctx, LINK_PREFIX);
  await tx.insert('linkTokens', {
    id: ctx.ids.next('ltk'),
    accountId: account.id,
    purpose,
    email,
    hash,
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
  return insertLink(ctx, tx, account, 'reopen', account.ownerEmail, reopenDeadline(ctx, account));
}

/** The end of the 30 days a closed account can be reopened in. */
export function reopenDeadline(ctx: EngineContext, account: AccountRecord): Timestamp {
  return addDays(account.closedAt ?? now(ctx), CLOSURE_DAYS);
}

/**
 * A new reopen link for the owner of a closed account who asked for one (the sign-in page): valid
 * for `REOPEN_REQUEST_MS`, cut at the end of the 30 days; null once they are over.
 */
export async function insertRequestedReopenLink(ctx: EngineContext, tx: StoreTx, account: AccountRecord): Promise<IssuedLink | null> {
  const deadline = timestampMs(reopenDeadline(ctx, account));
  const at = ctx.clock.now();
  if (at >= deadline) return null;
  return insertLink(ctx, tx, account, 'reopen', account.ownerEmail, toTimestamp(Math.min(deadline, at + REOPEN_REQUEST_MS)));
}
