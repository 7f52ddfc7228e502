import { LicensingError } from '../_internal/errors.js';
import type { AccountRecord, Locale } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import { audit } from '../_internal/audit.js';
import { loadAccount } from '../_internal/account.js';
import type { EngineContext } from '../_internal/context.js';
import { now, transact } from '../_internal/context.js';
import { sha256Hex } from '../_internal/hash.js';
import { timestampMs, toTimestamp } from '../_internal/time.js';
import { requireEmail } from '../_internal/validate.js';
import { accountView } from '../_internal/record-views.js';
import { insertLink, LINK_TOKEN, type IssuedLink } from '../sessions/links.js';

/**
 * How long the link confirming a new owner address works: 24 hours (it waits in a mailbox the
 * owner may not read at once, and it signs nobody in).
 *
 * @example
 * ```ts
 * OWNER_EMAIL_LINK_MS; // 86400000
 * ```
 */
export const OWNER_EMAIL_LINK_MS = 24 * 3_600_000;

/** What confirming a new owner address gave: the change, or why not (nothing is written then). */
export type OwnerEmailOutcome =
  | { ok: true; accountId: string; accountName: string; locale: Locale; from: string; to: string }
  | { ok: false; reason: 'unknown' | 'used' | 'expired' | 'account_closed' | 'taken' };

async function refuseTaken(tx: StoreTx, account: AccountRecord, address: string): Promise<void> {
  if (address === account.ownerEmail) throw new LicensingError('conflict', `${address} is already the owner's address`);
  if (await tx.findOne('members', { accountId: account.id, email: address })) {
    throw new LicensingError('conflict', `${address} is a member of the account: remove the member first`);
  }
}

/**
 * Asks to make `email` the owner's address (the owner's dashboard session only, which the host
 * checks): issues a one-time link for the host to e-mail to that address; nothing changes until it
 * is used ({@link confirmOwnerEmail}). A new request replaces the one pending. `conflict` when the
 * address is already the owner's or a member's.
 */
export async function requestOwnerEmailChange(ctx: EngineContext, accountId: string, email: unknown): Promise<IssuedLink> {
  const address = requireEmail(email, 'email');
  return transact(ctx, async (tx) => {
    const account = await loadAccount(tx, accountId, true);
    if (account.status !== 'open') throw new LicensingError('account_closed', 'the account is closed');
    await refuseTaken(tx, account, address);
    for (const link of await tx.findMany('linkTokens', { accountId })) {
      if (link.purpose === 'owner_email' && link.usedAt === null) await tx.delete('linkTokens', link.id);
    }
    return insertLink(ctx, tx, account, 'owner_email', address, toTimestamp(ctx.clock.now() + OWNER_EMAIL_LINK_MS));
  });
}

/**
 * Uses a link of {@link requestOwnerEmailChange}: the account's owner address becomes the link's,
 * the owner's dashboard sessions follow it (the same person, now known by the new address), the link
 * is marked used, and `account.owner_email_changed` is logged, in one transaction. The host then
 * tells the old address (`from`). A used, expired or unknown link, a closed account, or an address
 * that became a member's meanwhile gives a reason and writes nothing.
 */
export async function confirmOwnerEmail(ctx: EngineContext, token: unknown): Promise<OwnerEmailOutcome> {
  if (typeof token !== 'string' || !LINK_TOKEN.test(token)) return { ok: false, reason: 'unknown' };
  const hash = sha256Hex(token);
  return transact(ctx, async (tx): Promise<OwnerEmailOutcome> => {
    const link = await tx.findOne('linkTokens', { hash }, { lock: true });
    if (!link || link.purpose !== 'owner_email') return { ok: false, reason: 'unknown' };
    if (link.usedAt !== null) return { ok: false, reason: 'used' };
    if (ctx.clock.now() >= timestampMs(link.expiresAt)) return { ok: false, reason: 'expired' };
    const account = await loadAccount(tx, link.accountId, true);
    if (account.status !== 'open') return { ok: false, reason: 'account_closed' };
    const from = account.ownerEmail;
    const to = link.email;
    if (to !== from && (await tx.findOne('members', { accountId: account.id, email: to }))) return { ok: false, reason: 'taken' };
    const next: AccountRecord = { ...account, ownerEmail: to, updatedAt: now(ctx) };
    await tx.update('accounts', next);
    for (const session of await tx.findMany('sessions', { accountId: account.id, email: from })) await tx.update('sessions', { ...session, email: to });
    await tx.update('linkTokens', { ...link, usedAt: now(ctx) });
    await audit(ctx, tx, { accountId: account.id, type: 'account.owner_email_changed', licenseId: null, data: { from, to }, account: next, view: () => accountView(next) });
    return { ok: true, accountId: account.id, accountName: account.name, locale: account.defaultLocale, from, to };
  });
}
