import type { H3, H3Event } from 'h3';
import { SESSION_LIFETIMES, type LinkOutcome } from '@svc-licensing/license-engine';
import { isSameOrigin } from '../http/auth.js';
import { readFormBody } from '../http/body.js';
import type { RouteServices } from '../http/route.js';
import { sessionCookie } from './cookie.js';
import { LINK_PATHS } from './links.js';
import { pageResponse as page } from './page-html.js';

/** The largest body a link page's POST takes: its form holds one hidden token field. */
const FORM_LIMIT = 4096;

const wording: Record<'sign_in' | 'reopen', { title: string; intro: string; button: string }> = {
  sign_in: {
    title: 'Sign in',
    intro: 'Press the button to sign in to the licensing dashboard. The link works once.',
    button: 'Sign in',
  },
  reopen: {
    title: 'Reopen the account',
    intro: 'Press the button to reopen the closed account and sign in. You will then create new API keys: the old ones stay revoked.',
    button: 'Reopen the account and sign in',
  },
};

const failures: Record<Exclude<LinkOutcome, { ok: true }>['reason'], { status: number; title: string; text: string }> = {
  unknown: { status: 404, title: 'This link is not valid', text: 'The link is incomplete or unknown. Copy the whole link from the e-mail, or ask for a new one.' },
  used: { status: 410, title: 'This link was already used', text: 'A link works only once. Ask for a new sign-in link.' },
  expired: { status: 410, title: 'This link has expired', text: 'Sign-in links work for 15 minutes. Ask for a new one.' },
  account_closed: { status: 403, title: 'The account is closed', text: 'A closed account cannot be signed in to. Within 30 days of the closure, its owner can reopen it: ask for a sign-in link with the owner\'s address, and a link to reopen the account is e-mailed instead.' },
  account_open: { status: 409, title: 'The account is already open', text: 'Nothing to reopen: sign in as usual.' },
};

/**
 * The token of a link request: from the query string, or from the posted form's `token` field.
 * A posted body is read only up to `FORM_LIMIT` bytes (`413` beyond, before it is buffered): these
 * pages are reached before anyone signs in.
 */
export async function tokenOf(event: H3Event, form: boolean): Promise<string> {
  const fields = form ? await readFormBody(event, FORM_LIMIT) : null;
  return event.url.searchParams.get('token') || (fields?.get('token') ?? '');
}

/**
 * A cross-site POST of a link (login CSRF: another site signing the browser into an account of its
 * choosing) is refused; a request without Origin and Sec-Fetch-Site (curl, a mail client) is not.
 */
export function crossSite(event: H3Event, publicOrigin: string): boolean {
  const site = event.req.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin' && site !== 'none') return true;
  return event.req.headers.get('origin') !== null && !isSameOrigin(event, publicOrigin);
}

/**
 * Mounts the one-time link pages: `GET /sign-in` and `GET /reopen` show a page with a button (so a
 * mail scanner prefetching the link consumes nothing); `POST` to the same URL (empty body or the
 * page's form) uses the token, sets the `svc_session` cookie and answers `303` to `/dashboard/`.
 * A used, expired or unknown token gets a page saying so, and no cookie.
 */
export function mountLinkPages(app: H3, services: RouteServices): void {
  const publicOrigin = new URL(services.publicBaseUrl).origin;
  const secure = new URL(services.publicBaseUrl).protocol === 'https:';
  // A page that cannot sign in leads to the dashboard's sign-in page, where a new link is asked for.
  const signInPage = { label: 'Ask for a new sign-in link', href: `${services.publicBaseUrl.replace(/\/+$/, '')}/dashboard/` };
  for (const purpose of ['sign_in', 'reopen'] as const) {
    const w = wording[purpose];
    app.on('GET', LINK_PATHS[purpose], async (event) => {
      const token = await tokenOf(event, false);
      if (token === '') return page({ title: failures.unknown.title, paragraphs: [failures.unknown.text], link: signInPage }, failures.unknown.status);
      return page({ title: w.title, paragraphs: [w.intro], button: { label: w.button, token } });
    });
    app.on('POST', LINK_PATHS[purpose], async (event) => {
      if (crossSite(event, publicOrigin)) {
        return page({ title: 'Refused', paragraphs: ['This link must be used from its own page. Open the link from the e-mail again.'] }, 403);
      }
      const outcome = await services.engine.useLink(await tokenOf(event, true), purpose);
      if (!outcome.ok) {
        const f = failures[outcome.reason];
        return page({ title: f.title, paragraphs: [f.text], link: signInPage }, f.status);
      }
      return new Response(null, {
        status: 303,
        headers: {
          location: `${services.publicBaseUrl}/dashboard/`,
          'set-cookie': sessionCookie(outcome.session.token, SESSION_LIFETIMES.absoluteMs / 1000, secure),
          'cache-control': 'no-store',
          'referrer-policy': 'no-referrer',
        },
      });
    });
  }
}
