import type { IssuedLink, LinkPurpose } from '@svc-licensing/license-engine';
import { renderAccountEmail, type AccountEmailKind } from '../mail/account-email-template.js';
import type { RouteServices } from '../http/route.js';
import { sendServiceEmail } from '../mail/service-email.js';

/** The page path of each link purpose: `/sign-in?token=...`, `/reopen?token=...`, `/confirm-owner-email?token=...`. */
export const LINK_PATHS: Record<Exclude<LinkPurpose, 'portal_sign_in'>, string> = { sign_in: '/sign-in', reopen: '/reopen', owner_email: '/confirm-owner-email' };

/**
 * The customer portal's address for an account: `{publicBaseUrl}/portal/{accountId}/` (the
 * service-hosted portal, `customerPortal` mode `svc`).
 *
 * @example
 * portalUrlOf('https://licensing.example.com', 'acc_01...'); // 'https://licensing.example.com/portal/acc_01.../'
 */
export function portalUrlOf(publicBaseUrl: string, accountId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/portal/${encodeURIComponent(accountId)}/`;
}

/**
 * The absolute URL of a one-time link under the public base URL. The token travels in the query
 * string, which the request log never records.
 *
 * @example
 * linkUrl('https://licensing.example.com', 'sign_in', 'svc_lt_...'); // 'https://licensing.example.com/sign-in?token=svc_lt_...'
 */
export function linkUrl(publicBaseUrl: string, purpose: LinkPurpose, token: string, accountId = ''): string {
  if (purpose === 'portal_sign_in') return `${portalUrlOf(publicBaseUrl, accountId)}sign-in?token=${encodeURIComponent(token)}`;
  return `${publicBaseUrl.replace(/\/+$/, '')}${LINK_PATHS[purpose]}?token=${encodeURIComponent(token)}`;
}

/**
 * E-mails a link to its address through the configured mailer. Never throws: a failure (or no
 * mailer) is logged without the link, and the caller's answer does not change.
 */
export async function mailLink(services: Pick<RouteServices, 'mail' | 'publicBaseUrl' | 'logError'>, link: IssuedLink, kind: AccountEmailKind): Promise<void> {
  const { mail } = services;
  if (mail === null) {
    services.logError('account_email_not_sent', new Error(`no mailer is configured; the ${kind} e-mail for ${link.accountId} was not sent`));
    return;
  }
  const rendered = renderAccountEmail({
    kind,
    locale: link.locale,
    accountName: link.accountName,
    url: linkUrl(services.publicBaseUrl, link.purpose, link.token, link.accountId),
    expiresAt: link.expiresAt,
  });
  try {
    await sendServiceEmail(mail, link.email, { ...rendered, language: link.locale });
  } catch (error) {
    services.logError('account_email_failed', new Error(`the ${kind} e-mail for ${link.accountId} was not accepted: ${(error as Error)?.message ?? String(error)}`));
  }
}
