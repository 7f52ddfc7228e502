import { LicensingError } from '../_internal/errors.js';
import type { EngineContext } from '../_internal/context.js';
import { now, owned, transact } from '../_internal/context.js';
import { requireEmail } from '../_internal/validate.js';
import { openCursor, sealCursor } from '../_internal/cursor.js';
import { loadAccount, roleOf } from '../_internal/account.js';
import type { ListView, MemberView } from '../_internal/views.js';
import { memberView } from '../_internal/record-views.js';
import { audit } from '../_internal/audit.js';
import type { Actor } from '../_internal/records.js';

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
export async function addMember(ctx: EngineContext, accountId: string, input: { email?: unknown }, by: Actor | null = null): Promise<MemberView> {
  const email = requireEmail(input?.email);
  return transact(ctx, async (tx) => {
    const account = await loadAccount(tx, accountId);
    if (account.status !== 'open') throw new LicensingError('account_closed', 'the account is closed');
    if ((await roleOf(tx, account, email)) !== null) throw new LicensingError('conflict', 'this address is already the owner or a member');
    const member = { id: ctx.ids.next('mem'), accountId, email, createdAt: now(ctx) };
    await tx.insert('members', member);
    await audit(ctx, tx, { accountId, type: 'member.invited', licenseId: null, data: { member: member.id, email }, actor: by, account });
    return memberView(member);
  });
}

/** Removes a member and ends their sessions at once; audited as `member.removed` by `by`. */
export async function removeMember(ctx: EngineContext, accountId: string, memberId: string, by: Actor | null = null): Promise<MemberView> {
  return transact(ctx, async (tx) => {
    const member = await owned(tx, 'members', accountId, memberId, 'member');
    await tx.delete('members', member.id);
    for (const session of await tx.findMany('sessions', { accountId, email: member.email })) await tx.delete('sessions', session.id);
    await audit(ctx, tx, { accountId, type: 'member.removed', licenseId: null, data: { member: member.id, email: member.email }, actor: by });
    return memberView(member);
  });
}
