import { defineRoute, type RouteDef } from '../http/route.js';
import { CreateLicenseBody, ListLicensesQuery, UpdateLicenseBody } from '../http/schemas.js';
import { LicenseDetailView, LicenseSentView, LicenseView, listOf } from '../http/views.js';
import { portalUrlOf } from '../session/links.js';

/**
 * Licenses: list with filters, create, get, update, and the actions. PATCH and every action
 * answer with the License as in lists (no key, no activations), after the change (docs/decisions.md).
 */
export const licenseRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET', path: '/v1/licenses', api: 'vendor', tag: 'Licenses',
    summary: 'List licenses, newest first; filter by product, status, email (exact), q (part of email or name), key (complete key)',
    query: ListLicensesQuery, response: listOf(LicenseView), errors: ['invalid_request'],
    handler: ({ engine, accountId, query }) => engine.listLicenses(accountId, { ...query, cursor: query.cursor ?? null }),
  }),
  defineRoute({
    method: 'POST', path: '/v1/licenses', api: 'vendor', tag: 'Licenses', summary: 'Create a license; the key is returned in clear',
    body: CreateLicenseBody, response: LicenseDetailView, status: 201, errors: ['invalid_request', 'not_found', 'plan_limit'],
    handler: async (ctx) => {
      const { license, sendKeyEmail } = await ctx.engine.createLicense(ctx.accountId, ctx.body);
      if (sendKeyEmail) {
        if (ctx.hooks.sendKeyEmail) await ctx.hooks.sendKeyEmail({ accountId: ctx.accountId, licenseId: license.id, reserved: true });
        else await ctx.engine.releaseKeyEmail(license.id);
      }
      return license;
    },
  }),
  defineRoute({
    method: 'GET', path: '/v1/licenses/{id}', api: 'vendor', tag: 'Licenses', summary: 'Get a license with its key and activations',
    response: LicenseDetailView, errors: ['not_found'],
    handler: ({ engine, accountId, params }) => engine.getLicense(accountId, params.id!),
  }),
  defineRoute({
    method: 'PATCH', path: '/v1/licenses/{id}', api: 'vendor', tag: 'Licenses', summary: 'Update a license',
    body: UpdateLicenseBody, response: LicenseView, errors: ['invalid_request', 'not_found', 'conflict'],
    handler: ({ engine, accountId, params, body }) => engine.updateLicense(accountId, params.id!, body),
  }),
  defineRoute({
    method: 'POST', path: '/v1/licenses/{id}/suspend', api: 'vendor', tag: 'Licenses', summary: 'Suspend a license (reversible)',
    response: LicenseView, errors: ['not_found', 'conflict'],
    handler: ({ engine, accountId, params }) => engine.suspendLicense(accountId, params.id!),
  }),
  defineRoute({
    method: 'POST', path: '/v1/licenses/{id}/reinstate', api: 'vendor', tag: 'Licenses',
    summary: 'Return a suspended or refunded license to the status it held before',
    response: LicenseView, errors: ['not_found', 'conflict'],
    handler: ({ engine, accountId, params }) => engine.reinstateLicense(accountId, params.id!),
  }),
  defineRoute({
    method: 'POST', path: '/v1/licenses/{id}/revoke', api: 'vendor', tag: 'Licenses', summary: 'Revoke a license, for good',
    response: LicenseView, errors: ['not_found', 'conflict'],
    handler: ({ engine, accountId, params }) => engine.revokeLicense(accountId, params.id!),
  }),
  defineRoute({
    method: 'POST', path: '/v1/licenses/{id}/send-key', api: 'vendor', tag: 'Licenses',
    summary: "E-mail the license key again, in the license's language; answers the license and `portalUrl`, the customer portal the e-mail links to (null without one)",
    response: LicenseSentView, errors: ['not_found', 'conflict', 'account_closed', 'rate_limited'],
    handler: async (ctx) => {
      const id = ctx.params.id!;
      if (ctx.hooks.sendKeyEmail) {
        await ctx.hooks.sendKeyEmail({ accountId: ctx.accountId, licenseId: id });
      } else {
        // No mailer: the engine still decides the answer (404, 409, 403, 429); nothing is sent.
        await ctx.engine.reserveKeyEmail(ctx.accountId, id);
        await ctx.engine.releaseKeyEmail(id);
      }
      const { key: _key, activations: _activations, ...license } = await ctx.engine.getLicense(ctx.accountId, id);
      // Where the e-mail sent the customer to manage their license (null without a portal).
      const account = await ctx.engine.getAccount(ctx.accountId);
      const portal = account.customerPortal;
      return { ...license, portalUrl: portal.mode === 'svc' ? portalUrlOf(ctx.publicBaseUrl, ctx.accountId) : portal.mode === 'custom' ? portal.url : null };
    },
  }),
];

