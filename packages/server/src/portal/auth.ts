import type { CustomerPrincipal } from '@svc-licensing/license-engine';
import { isSameOrigin } from '../http/auth.js';
import { ApiError } from '../http/errors.js';
import type { RouteContext } from '../http/route.js';
import { portalTokenOf } from './cookie.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The signed-in customer of a portal API request (`/v1/portal/{accountId}/...`): the account's
 * portal cookie, same-origin for anything but GET (CSRF), and a live customer session of that
 * account. Anything else is `401 unauthorized` (`403 forbidden` for a cross-site change). Every
 * portal request also counts against its IP (the client API's per-IP limit).
 */
export async function customerOf(ctx: RouteContext<unknown, unknown>): Promise<CustomerPrincipal> {
  const accountId = ctx.params.accountId ?? '';
  await ctx.rateLimit(ctx.event, [{ key: `portal-ip:${ctx.ip}`, limit: ctx.limits.clientPerIp }]);
  const token = portalTokenOf(ctx.event, accountId);
  if (token === '') throw new ApiError('unauthorized', 'Sign in to the portal with the link e-mailed to you.');
  if (!SAFE_METHODS.has(ctx.event.req.method) && !isSameOrigin(ctx.event, new URL(ctx.publicBaseUrl).origin)) {
    throw new ApiError('forbidden', 'A portal request that changes something must come from the portal page itself (same origin).');
  }
  const customer = await ctx.engine.authenticateCustomer(accountId, token);
  if (customer === null) throw new ApiError('unauthorized', 'Your portal session has ended; sign in again with a new link.');
  return customer;
}
