import { actorOf } from '../http/auth.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { EmailBody, UpdateAccountBody } from '../http/schemas.js';
import { AccountView, BillingView, OwnerEmailChangeView, UsageView } from '../http/views.js';
import { clearedSessionCookie } from '../session/cookie.js';
import { mailLink, portalUrlOf } from '../session/links.js';

/** The account view with `portalUrl` filled in for the service-hosted portal (mode `svc`): this server's own address. */
function withPortalUrl<A extends { id: string; portalUrl: string | null; customerPortal: { mode: string } }>(account: A, publicBaseUrl: string): A {
  return account.customerPortal.mode === 'svc' ? { ...account, portalUrl: portalUrlOf(publicBaseUrl, account.id) } : account;
}

/** The account: get, update, close, usage, billing (the sender domain: sender-domain.ts). */
export const accountRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET', path: '/v1/account', api: 'vendor', tag: 'Account', summary: 'Get the account',
    response: AccountView,
    handler: async ({ engine, accountId, publicBaseUrl }) => withPortalUrl(await engine.getAccount(accountId), publicBaseUrl),
  }),
  defineRoute({
    method: 'PATCH', path: '/v1/account', api: 'vendor', tag: 'Account',
    summary: 'Update the account (customerPortal mode svc stands for the service-hosted portal)',
    body: UpdateAccountBody, response: AccountView, errors: ['invalid_request'],
    handler: async ({ engine, accountId, body, publicBaseUrl, principal }) =>
      withPortalUrl(await engine.updateAccount(accountId, body, actorOf(principal!)), publicBaseUrl),
  }),
  defineRoute({
    method: 'POST', path: '/v1/account/owner-email', api: 'vendor', tag: 'Account', access: 'owner',
    summary:
      "Change the owner's e-mail address (owner only): a one-time link (24 hours) is e-mailed to the new address, and the " +
      'change applies only when it is used; the old address is then told. A new request replaces the pending one',
    body: EmailBody, response: OwnerEmailChangeView, status: 202, errors: ['invalid_request', 'conflict'],
    handler: async (ctx) => {
      const link = await ctx.engine.requestOwnerEmailChange(ctx.accountId, ctx.body.email);
      await mailLink(ctx, link, 'owner_email');
      return { email: link.email, expiresAt: link.expiresAt };
    },
  }),
  defineRoute({
    method: 'POST', path: '/v1/account/close', api: 'vendor', tag: 'Account', access: 'owner',
    summary:
      "Close the account (owner only): API keys and sessions are revoked at once, new activations refused, activated machines " +
      'keep validating for 30 days, payments are still applied without key e-mails, and the owner is e-mailed a reopen link ' +
      'valid 30 days; after that every record of the account is deleted',
    response: AccountView,
    handler: async (ctx) => {
      const { account, reopenLink } = await ctx.engine.closeAccount(ctx.accountId);
      if (reopenLink !== null) await mailLink(ctx, reopenLink, 'reopen');
      ctx.setHeader('set-cookie', clearedSessionCookie(ctx.publicBaseUrl.startsWith('https:')));
      return withPortalUrl(account, ctx.publicBaseUrl);
    },
  }),
  defineRoute({
    method: 'GET', path: '/v1/account/usage', api: 'vendor', tag: 'Account', summary: 'Usage against the service plan (null limit = unlimited)',
    response: UsageView,
    handler: ({ engine, accountId }) => engine.getUsage(accountId),
  }),
  defineRoute({
    method: 'GET', path: '/v1/account/billing', api: 'vendor', tag: 'Account', summary: 'Billing of the service plan',
    response: BillingView,
    handler: ({ engine, accountId }) => engine.getBilling(accountId),
  }),
];
