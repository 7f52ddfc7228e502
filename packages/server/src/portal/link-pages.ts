import type { H3 } from 'h3';
import { CUSTOMER_SESSION_LIFETIMES, type PortalLinkOutcome } from '@svc-licensing/license-engine';
import type { RouteServices } from '../http/route.js';
import { portalUrlOf } from '../session/links.js';
import { pageResponse as page } from '../session/page-html.js';
import { crossSite, tokenOf } from '../session/pages.js';
import { portalCookie } from './cookie.js';

const failures: Record<Exclude<PortalLinkOutcome, { ok: true }>['reason'], { status: number; title: string; text: string }> = {
  unknown: { status: 404, title: 'This link is not valid', text: 'The link is incomplete or unknown. Copy the whole link from the e-mail, or ask for a new one on the portal.' },
  used: { status: 410, title: 'This link was already used', text: 'A link works only once. Ask for a new sign-in link on the portal.' },
  expired: { status: 410, title: 'This link has expired', text: 'Sign-in links work for 15 minutes. Ask for a new one on the portal.' },
  no_portal: { status: 404, title: 'No portal here', text: 'This vendor does not offer its customer portal on this service.' },
};

/**
 * Mounts the portal's one-time link page `/portal/{accountId}/sign-in?token=...`: `GET` shows a
 * button (a mail scanner prefetching the link consumes nothing); `POST` (the button's form, or an
 * empty body) uses the token, sets the account's portal cookie and answers `303` to the portal. A
 * used, expired or unknown token gets a page saying so, and no cookie. Same flow as the dashboard's
 * sign-in link, with the customer audience.
 */
export function mountPortalLinkPages(app: H3, services: RouteServices): void {
  const publicOrigin = new URL(services.publicBaseUrl).origin;
  const secure = new URL(services.publicBaseUrl).protocol === 'https:';
  app.on('GET', '/portal/:accountId/sign-in', async (event) => {
    const token = await tokenOf(event, false);
    if (token === '') return page({ title: failures.unknown.title, paragraphs: [failures.unknown.text] }, failures.unknown.status);
    return page({
      title: 'Sign in to your licenses',
      paragraphs: ['Press the button to see your licenses and machines. The link works once.'],
      button: { label: 'Sign in', token },
    });
  });
  app.on('POST', '/portal/:accountId/sign-in', async (event) => {
    if (crossSite(event, publicOrigin)) {
      return page({ title: 'Refused', paragraphs: ['This link must be used from its own page. Open the link from the e-mail again.'] }, 403);
    }
    const accountId = event.context.params?.accountId ?? '';
    const outcome = await services.engine.usePortalLink(accountId, await tokenOf(event, true));
    if (!outcome.ok) {
      const f = failures[outcome.reason];
      return page({ title: f.title, paragraphs: [f.text] }, f.status);
    }
    return new Response(null, {
      status: 303,
      headers: {
        location: portalUrlOf(services.publicBaseUrl, outcome.accountId),
        'set-cookie': portalCookie(outcome.accountId, outcome.session.token, CUSTOMER_SESSION_LIFETIMES.absoluteMs / 1000, secure),
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      },
    });
  });
}
