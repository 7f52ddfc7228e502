import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { ApiError } from '../http/errors.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { EmailBody } from '../http/schemas.js';
import {
  AcceptedView, OfflineActivationView, PortalCustomerView, PortalKeyView, PortalLicenseDetailView, PortalLicenseListView, PortalView, ReleasedView,
  SentView, SignedOutView,
} from '../http/views.js';
import { customerOf } from '../portal/auth.js';
import { clearedPortalCookie } from '../portal/cookie.js';
import { mailLink } from '../session/links.js';

const emailBucket = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex');

const PortalOfflineBody = v.strictObject({
  request: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(8192, 'at most 8192 characters')),
  license: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
});

const TAG = 'Customer portal';
const BASE = '/v1/portal/{accountId}';

/**
 * The customer portal's API (service-hosted portal, account mode `svc`): sign-in by one-time link,
 * then the signed-in customer's own licenses of that account only. Authenticated by the account's
 * portal cookie (never by an API key or a dashboard session, and a portal session never reaches the
 * vendor API). None of its answers is kept by a cache (`noStore`): they hold a customer's licenses,
 * machines and key.
 */
export const portalRoutes: RouteDef[] = ([
  defineRoute({
    method: 'GET', path: BASE, api: 'public', tag: TAG, summary: "The portal's public facts (the vendor's name); 404 when the account has no portal here",
    response: PortalView, errors: ['not_found'],
    handler: ({ engine, params }) => engine.getPortal(params.accountId!),
  }),
  defineRoute({
    method: 'POST', path: `${BASE}/session/link`, api: 'public', tag: TAG,
    summary:
      'E-mail a one-time portal sign-in link (15 minutes) to this address if it holds a license of the account. ' +
      'The answer is the same for any address; rate-limited per address within the account, and per IP.',
    body: EmailBody, response: AcceptedView, status: 202, errors: ['invalid_request', 'rate_limited'],
    handler: async (ctx) => {
      const { body, ip, limits, params } = ctx;
      // The address's budget is the account's own: requests naming another (or a made-up) account
      // cannot lock a customer out of this portal.
      await ctx.rateLimit(ctx.event, [
        { key: `portal-signin-ip:${ip}`, limit: limits.signInPerIp },
        { key: `portal-signin-email:${emailBucket(`${params.accountId!}:${body.email.trim().toLowerCase()}`)}`, limit: limits.signInPerEmail },
      ]);
      // Looked up and mailed after the answer, so known and unknown addresses answer alike and as fast.
      ctx.afterAnswer('portal_link_failed', async () => {
        const link = await ctx.engine.requestPortalLink(params.accountId!, body.email);
        if (link) await mailLink(ctx, link, 'portal_sign_in');
      });
      return { accepted: true };
    },
  }),
  defineRoute({
    method: 'GET', path: `${BASE}/session`, api: 'public', tag: TAG, summary: 'The signed-in customer (401 when none)',
    response: PortalCustomerView, errors: ['unauthorized'],
    handler: async (ctx) => {
      const customer = await customerOf(ctx);
      return { email: customer.email, accountId: customer.accountId, expiresAt: customer.expiresAt };
    },
  }),
  defineRoute({
    method: 'DELETE', path: `${BASE}/session`, api: 'public', tag: TAG, summary: 'Sign out of the portal',
    response: SignedOutView, errors: ['unauthorized', 'forbidden'],
    handler: async (ctx) => {
      const customer = await customerOf(ctx);
      await ctx.engine.endCustomerSession(customer.sessionId);
      ctx.setHeader('set-cookie', clearedPortalCookie(customer.accountId, ctx.publicBaseUrl.startsWith('https:')));
      return { signedOut: true };
    },
  }),
  defineRoute({
    method: 'GET', path: `${BASE}/licenses`, api: 'public', tag: TAG, summary: "The signed-in customer's licenses of this account",
    response: PortalLicenseListView, errors: ['unauthorized'],
    handler: async (ctx) => ctx.engine.listPortalLicenses(await customerOf(ctx)),
  }),
  defineRoute({
    method: 'GET', path: `${BASE}/licenses/{id}`, api: 'public', tag: TAG,
    summary: 'One license with its machines (name, platform, app version, last seen; never the fingerprint) and the releases left in 30 days',
    response: PortalLicenseDetailView, errors: ['unauthorized', 'not_found'],
    handler: async (ctx) => ctx.engine.getPortalLicense(await customerOf(ctx), ctx.params.id!),
  }),
  defineRoute({
    method: 'POST', path: `${BASE}/licenses/{id}/key`, api: 'public', tag: TAG, summary: 'Reveal the license key',
    response: PortalKeyView, errors: ['unauthorized', 'forbidden', 'not_found'],
    handler: async (ctx) => {
      const customer = await customerOf(ctx);
      return ctx.engine.revealPortalKey(customer, ctx.params.id!);
    },
  }),
  defineRoute({
    method: 'POST', path: `${BASE}/licenses/{id}/send-key`, api: 'public', tag: TAG,
    summary:
      'E-mail the license key again to the customer: 3 per license and hour (429 rate_limited beyond), counted apart from ' +
      "the account's budget of key e-mails, which the portal never spends",
    response: SentView, errors: ['unauthorized', 'forbidden', 'not_found', 'rate_limited', 'key_email_in_progress', 'conflict'],
    handler: async (ctx) => {
      const customer = await customerOf(ctx);
      if (!ctx.hooks.sendKeyEmail) throw new ApiError('internal_error', 'This server sends no e-mail; ask the vendor for your key.');
      const { id } = await ctx.engine.reservePortalKeyEmail(customer, ctx.params.id!);
      await ctx.hooks.sendKeyEmail({ accountId: customer.accountId, licenseId: id, reserved: true, mustSend: true });
      return { sent: true };
    },
  }),
  defineRoute({
    method: 'DELETE', path: `${BASE}/activations/{id}`, api: 'public', tag: TAG,
    summary:
      "Free one of the customer's machines (its next online check reports not_activated). Bounded per license and 30 days " +
      'by the account setting portalReleaseLimit (default 3): 409 release_limit beyond it.',
    response: ReleasedView,
    errors: ['unauthorized', 'forbidden', 'not_found', 'release_limit'],
    handler: async (ctx) => ctx.engine.releasePortalActivation(await customerOf(ctx), ctx.params.id!),
  }),
  defineRoute({
    method: 'POST', path: `${BASE}/activations/offline`, api: 'public', tag: TAG,
    summary:
      "Activate an air-gapped machine of the customer's from its activation request (SVCREQ1); same rules and limits as " +
      'POST /licenses/activate; answers the certificate to carry back to the machine.',
    body: PortalOfflineBody, response: OfflineActivationView,
    errors: ['unauthorized', 'forbidden', 'invalid_request', 'not_found', 'unknown_key', 'unknown_product', 'license_expired', 'license_suspended', 'license_refunded', 'license_revoked', 'activation_limit'],
    handler: async (ctx) => {
      const customer = await customerOf(ctx);
      return ctx.engine.activateOffline(customer.accountId, ctx.body, { customerEmail: customer.email });
    },
  }),
] satisfies RouteDef[]).map((route) => ({ ...route, noStore: true }));
