import { LicensingError } from './errors.js';
import type { AccountRecord, Role } from './records.js';
import type { StoreTx } from './store.js';
import type { EngineContext } from './_internal/context.js';
import { now, owned, transact } from './_internal/context.js';
import { requireEmail } from './_internal/validate.js';
import { openCursor, sealCursor } from './_internal/cursor.js';
import { loadAccount } from './accounts.js';
import type { ListView, MemberView } from './views.js';
import { memberView } from './views.js';

/** The role of `email` in the account: `owner` (its owner e-mail), `member` (invited), or null. */
export async function roleOf(tx: StoreTx, account: AccountRecord, email: string): Promise<Role | null> {
  if (email === account.ownerEmail) return 'owner';
  return (await tx.findOne('members', { accountId: account.id, email })) ? 'member' : null;
}

/** The account's members (the owner is not one), newest first. */
export async function listMembers(ctx: EngineContext, accountId: string, options: { cursor?: string | null } = {}): Promise<ListView<MemberView>> {
  const scope = ['members', accountId] as const;
  const cursor = openCursor(ctx, scope, options.cursor);
  return transact(ctx, async (tx) => {
    await loadAccount(tx, accountId);
    const page = await tx.page('members', { where: { accountId }, cursor, limit: 50, order: 'desc' });
    return { data: page.data.map(memberView), nextCursor: sealCursor(ctx, scope, page.nextCursor) };
  });
}

/** Adds a member by e-mail; `conflict` for the owner's address or an existing member. */
export async function addMember(ctx: EngineContext, accountId: string, input: { email?: unknown }): Promise<MemberView> {
  const email = requireEmail(input?.email);
  return transact(ctx, async (tx) => {
    const account = await loadAccount(tx, accountId);
    if (account.status !== 'open') throw new LicensingError('account_closed', 'the account is closed');
    if ((await roleOf(tx, account, email)) !== null) throw new LicensingError('conflict', 'this address is already the owner or a member');
    const member = { id: ctx.ids.next('mem'), accountId, email, createdAt: now(ctx) };
    await tx.insert('members', member);
    return memberView(member);
  });
}

/** Removes a member and ends their sessions at once. */
export async function removeMember(ctx: EngineContext, accountId: string, memberId: string): Promise<MemberView> {
  return transact(ctx, async (tx) => {
    const member = await owned(tx, 'members', accountId, memberId, 'member');
    await tx.delete('members', member.id);
    for (const session of await tx.findMany('sessions', { accountId, email: member.email })) await tx.delete('sessions', session.id);
    return memberView(member);
  });
}
