import { getCookie, type H3Event } from 'h3';

/**
 * Name of the customer portal session cookie of an account: `svc_portal_<accountId>`. Separate
 * from the dashboard's `svc_session` (the vendor API never reads it), and one per account, so a
 * customer of two vendors on one server keeps both sessions.
 *
 * @example
 * portalCookieName('acc_01abc'); // 'svc_portal_acc_01abc'
 */
export function portalCookieName(accountId: string): string {
  return `svc_portal_${accountId.replace(/[^A-Za-z0-9_]/g, '')}`;
}

/** The `Set-Cookie` value of a new customer session: HttpOnly, SameSite=Lax, Path=/, Secure on https. */
export function portalCookie(accountId: string, token: string, maxAgeSeconds: number, secure: boolean): string {
  return `${portalCookieName(accountId)}=${token}; Path=/; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** The `Set-Cookie` value that removes the customer session cookie (sign-out). */
export function clearedPortalCookie(accountId: string, secure: boolean): string {
  return `${portalCookieName(accountId)}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** The customer session token the request carries for the portal of `accountId`, or ''. */
export function portalTokenOf(event: H3Event, accountId: string): string {
  return getCookie(event, portalCookieName(accountId)) ?? '';
}
