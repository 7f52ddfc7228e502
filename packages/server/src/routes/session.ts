import { createHash } from 'node:crypto';
import { ApiError } from '../http/errors.js';
import { actorOf } from '../http/auth.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { EmailBody, PageQuery } from '../http/schemas.js';
import { AcceptedView, DeletedView, PrincipalView, SessionView, SignedOutView, listOf } from '../http/views.js';
import { clearedSessionCookie } from '../session/cookie.js';
import { mailLink } from '../session/links.js';

const emailBucket = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex');

/** Dashboard sign-in: the link request, who is signed in, sign-out, and the owner's list of sessions. */
export const sessionRoutes: RouteDef[] = [
  defineRoute({
    method: 'POST', path: '/v1/session/link', api: 'public', tag: 'Session',
    summary:
      'E-mail a one-time sign-in link (15 minutes) to this address if it is an account owner or member, and to the owner of an ' +
      'account closed less than 30 days ago a new link to reopen it (a day). ' +
      'The answer is the same for any address; rate-limited per address and per IP.',
    body: EmailBody, response: AcceptedView, status: 202, errors: ['invalid_request', 'rate_limited'],
    handler: async (ctx) => {
      const { body, ip, limits } = ctx;
      await ctx.rateLimit(ctx.event, [
        { key: `signin-ip:${ip}`, limit: limits.signInPerIp },
        { key: `signin-email:${emailBucket(body.email)}`, limit: limits.signInPerEmail },
      ]);
      // Looked up and mailed after the answer, so known and unknown addresses answer alike and as fast.
      ctx.afterAnswer('sign_in_link_failed', async () => {
        // The owner of a closed account gets a new reopen link instead (within the 30 days).
        for (const link of await ctx.engine.requestSignInLinks(body.email)) await mailLink(ctx, link, link.purpose === 'reopen' ? 'reopen' : 'sign_in');
      });
      return { accepted: true };
    },
  }),
  defineRoute({
    method: 'GET', path: '/v1/session', api: 'vendor', tag: 'Session',
    summary: 'Who is calling: the signed-in session (e-mail and role) or the API key',
    response: PrincipalView,
    handler: ({ principal }) =>
      principal!.kind === 'session'
        ? { kind: 'session', accountId: principal!.accountId, email: principal!.email, role: principal!.role, sessionId: principal!.sessionId, apiKeyId: null }
        : { kind: 'api_key', accountId: principal!.accountId, email: null, role: null, sessionId: null, apiKeyId: principal!.apiKeyId },
  }),
  defineRoute({
    method: 'DELETE', path: '/v1/session', api: 'vendor', tag: 'Session',
    summary: 'Sign out: ends this session and clears the cookie (400 invalid_request with an API key)',
    response: SignedOutView, errors: ['invalid_request'],
    handler: async ({ engine, principal, publicBaseUrl, setHeader }) => {
      if (principal!.kind !== 'session') throw new ApiError('invalid_request', 'Signing out needs a session; an API key is revoked with DELETE /v1/api-keys/{id}.');
      await engine.revokeSession(principal!.accountId, principal!.sessionId, actorOf(principal!));
      setHeader('set-cookie', clearedSessionCookie(publicBaseUrl.startsWith('https:')));
      return { signedOut: true };
    },
  }),
  defineRoute({
    method: 'GET', path: '/v1/sessions', api: 'vendor', tag: 'Session', access: 'owner',
    summary: "The account's live sessions, newest first (owner only)",
    query: PageQuery, response: listOf(SessionView), errors: ['invalid_request'],
    handler: async ({ engine, accountId, query, principal }) => {
      const page = await engine.listSessions(accountId, { cursor: query.cursor ?? null });
      const current = principal!.kind === 'session' ? principal!.sessionId : null;
      return { data: page.data.map((s) => ({ ...s, current: s.id === current })), nextCursor: page.nextCursor };
    },
  }),
  defineRoute({
    method: 'DELETE', path: '/v1/sessions/{id}', api: 'vendor', tag: 'Session', access: 'owner',
    summary: 'Revoke a session of the account at once (owner only)',
    response: DeletedView, errors: ['not_found'],
    handler: async ({ engine, accountId, params, principal }) => {
      await engine.revokeSession(accountId, params.id!, actorOf(principal!));
      return { id: params.id!, deleted: true };
    },
  }),
];
