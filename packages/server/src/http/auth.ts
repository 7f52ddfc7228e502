import { getCookie, type H3Event } from 'h3';
import type { Actor, LicenseEngine } from '@svc-licensing/license-engine';
import { ApiError } from './errors.js';

/** RFC 9110: the scheme name is case-insensitive (`bearer`, `BEARER`); the key itself is not. */
const BEARER = /^bearer +(svc_sk_[A-Za-z0-9_-]{32})$/i;

/** Name of the dashboard session cookie. */
export const SESSION_COOKIE = 'svc_session';

/**
 * Who made a vendor API request: an API key, or a signed-in dashboard session (owner or member).
 * Both are scoped to `accountId`.
 */
export type Principal =
  | { kind: 'api_key'; accountId: string; apiKeyId: string }
  | { kind: 'session'; accountId: string; sessionId: string; email: string; role: 'owner' | 'member' };

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a browser request comes from the service's own pages: `Sec-Fetch-Site: same-origin`,
 * or an `Origin` equal to the public base URL's origin or to the origin the request was sent to.
 *
 * @example
 * isSameOrigin(event, 'https://licensing.example.com'); // true for the dashboard's own fetches
 */
export function isSameOrigin(event: H3Event, publicOrigin: string): boolean {
  if (event.req.headers.get('sec-fetch-site') === 'same-origin') return true;
  const origin = event.req.headers.get('origin');
  return origin !== null && (origin === publicOrigin || origin === event.url.origin);
}

/**
 * Authenticates a vendor API request. `Authorization: Bearer svc_sk_<32 chars>` is an API key
 * (the cookie is then ignored); otherwise the `svc_session` cookie is a dashboard session, and a
 * state-changing request (anything but GET/HEAD) with it must be same-origin (`403 forbidden`,
 * CSRF). A missing, malformed, unknown, revoked or ended credential, or a closed account, is
 * `401 unauthorized`.
 *
 * @example
 * const principal = await authenticate(event, engine, 'https://licensing.example.com');
 */
export async function authenticate(event: H3Event, engine: LicenseEngine, publicOrigin: string): Promise<Principal> {
  const header = event.req.headers.get('authorization');
  if (header !== null) {
    const match = BEARER.exec(header.trim());
    if (match === null) throw new ApiError('unauthorized', 'Missing or invalid API key.');
    const key = await engine.authenticate(match[1]!);
    if (key === null) throw new ApiError('unauthorized', 'Missing or invalid API key.');
    return { kind: 'api_key', ...key };
  }
  const token = getCookie(event, SESSION_COOKIE);
  if (token === undefined || token === '') throw new ApiError('unauthorized', 'Missing or invalid API key.');
  if (!SAFE_METHODS.has(event.req.method) && !isSameOrigin(event, publicOrigin)) {
    throw new ApiError('forbidden', 'A request signed in by the session cookie must come from the same origin (Origin or Sec-Fetch-Site header).');
  }
  const session = await engine.authenticateSession(token);
  if (session === null) throw new ApiError('unauthorized', 'The session has ended or is invalid; sign in again.');
  return { kind: 'session', accountId: session.accountId, sessionId: session.sessionId, email: session.email, role: session.role };
}

/** Who a vendor request acts as, for what the engine records (an API key's creator, an audit event's actor). */
export function actorOf(principal: Principal): Actor {
  return principal.kind === 'api_key'
    ? { kind: 'api_key', email: null, apiKeyId: principal.apiKeyId }
    : { kind: principal.role, email: principal.email, apiKeyId: null };
}

/**
 * The refusal of a route's `access` rule for `principal`, or null when it may proceed. `owner`: an
 * API key is `400 owner_session_required`, a member `403 forbidden`. `not_member`: the owner's
 * session or an API key may, a member is `403 forbidden`.
 */
export function accessRefusal(access: 'owner' | 'not_member' | undefined, principal: Principal): ApiError | null {
  if (access === undefined) return null;
  if (access === 'owner' && principal.kind === 'api_key') {
    return new ApiError('owner_session_required', "This operation requires the account owner's dashboard session, not an API key.");
  }
  if (principal.kind === 'session' && principal.role !== 'owner') return new ApiError('forbidden', 'Only the account owner can do this; a member cannot.');
  return null;
}
