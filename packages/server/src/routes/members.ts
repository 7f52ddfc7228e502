import { createHash } from 'node:crypto';
import { actorOf } from '../http/auth.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { EmailBody, PageQuery } from '../http/schemas.js';
import { MemberView, listOf } from '../http/views.js';
import { mailLink } from '../session/links.js';

const inviteBucket = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex');

/** Members: anyone signed in lists them; the owner invites (an e-mailed sign-in link) and removes them. */
export const memberRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET', path: '/v1/members', api: 'vendor', tag: 'Members', summary: "The account's members (the owner is not listed), newest first",
    query: PageQuery, response: listOf(MemberView), errors: ['invalid_request'],
    handler: ({ engine, accountId, query }) => engine.listMembers(accountId, { cursor: query.cursor ?? null }),
  }),
  defineRoute({
    method: 'POST', path: '/v1/members', api: 'vendor', tag: 'Members', access: 'owner',
    summary:
      'Invite a member by e-mail: adds them and e-mails a sign-in link (owner only); 409 conflict for the owner or an existing member; ' +
      'at most as many invitations to one address an hour, from every account together, as sign-in links (429 rate_limited beyond, nothing added)',
    body: EmailBody, response: MemberView, status: 201, errors: ['conflict', 'rate_limited'],
    handler: async (ctx) => {
      // Inviting, removing and inviting again must not make the service mail someone without end.
      await ctx.rateLimit(ctx.event, [{ key: `invite-email:${inviteBucket(ctx.body.email)}`, limit: ctx.limits.signInPerEmail }]);
      const member = await ctx.engine.addMember(ctx.accountId, { email: ctx.body.email }, actorOf(ctx.principal!));
      const link = await ctx.engine.issueSignInLink(ctx.accountId, { email: member.email });
      await mailLink(ctx, link, 'invite');
      return member;
    },
  }),
  defineRoute({
    method: 'DELETE', path: '/v1/members/{id}', api: 'vendor', tag: 'Members', access: 'owner',
    summary: 'Remove a member; their sessions end at once (owner only)',
    response: MemberView, errors: ['not_found'],
    handler: ({ engine, accountId, params, principal }) => engine.removeMember(accountId, params.id!, actorOf(principal!)),
  }),
];
