import { SESSION_COOKIE } from '../http/auth.js';

/**
 * The `Set-Cookie` value of a new session: HttpOnly, SameSite=Lax, Path=/, Secure when the public
 * URL is https, living as long as the session's absolute lifetime.
 *
 * @example
 * sessionCookie('svc_ses_...', 604800, true); // 'svc_session=svc_ses_...; Path=/; Max-Age=604800; HttpOnly; SameSite=Lax; Secure'
 */
export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** The `Set-Cookie` value that removes the session cookie (sign-out). */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}
