import { ApiError } from '../http/errors.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { UpdateAccountBody } from '../http/schemas.js';
import { AccountView, BillingView, SenderDomainView, UsageView } from '../http/views.js';
import { portalUrlOf } from '../session/links.js';
import { ownerOnly } from './signing-keys.js';

/**
 * The sender domain as long as none is claimed. Claiming is an owner-only dashboard action that
 * does not exist yet, so through the API there is never a claimed domain (docs/decisions.md).
 */
const NO_SENDER_DOMAIN = { domain: null, status: 'none', records: [] } as const;

/** The account view with `portalUrl` filled in for the service-hosted portal (mode `svc`): this server's own address. */
function withPortalUrl<A extends { id: string; portalUrl: string | null; customerPortal: { mode: string } }>(account: A, publicBaseUrl: string): A {
  return account.customerPortal.mode === 'svc' ? { ...account, portalUrl: portalUrlOf(publicBaseUrl, account.id) } : account;
}

/** The account: get, update, usage, billing, and the sender domain. */
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
    handler: async ({ engine, accountId, body, publicBaseUrl }) => withPortalUrl(await engine.updateAccount(accountId, body), publicBaseUrl),
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
  defineRoute({
    method: 'GET', path: '/v1/account/sender-domain', api: 'vendor', tag: 'Account', summary: 'The sender domain and its DNS records',
    response: SenderDomainView,
    handler: () => NO_SENDER_DOMAIN,
  }),
  defineRoute({
    method: 'POST', path: '/v1/account/sender-domain', api: 'vendor', tag: 'Account',
    summary: "Claim a sender domain: only in the account owner's dashboard session; an API key gets 400 owner_session_required",
    errors: ['owner_session_required'],
    handler: () => {
      throw ownerOnly('Claiming a sender domain');
    },
  }),
  defineRoute({
    method: 'POST', path: '/v1/account/sender-domain/verify', api: 'vendor', tag: 'Account',
    summary: 'Check the DNS records of the sender domain now; 404 not_found while no domain is claimed',
    response: SenderDomainView, errors: ['not_found'],
    handler: () => {
      throw new ApiError('not_found', 'No sender domain is claimed; the account owner claims one in the dashboard.');
    },
  }),
  defineRoute({
    method: 'DELETE', path: '/v1/account/sender-domain', api: 'vendor', tag: 'Account',
    summary: "Release the sender domain: only in the account owner's dashboard session; an API key gets 400 owner_session_required",
    errors: ['owner_session_required'],
    handler: () => {
      throw ownerOnly('Releasing the sender domain');
    },
  }),
];
