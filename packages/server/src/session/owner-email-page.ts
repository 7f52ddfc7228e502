import type { H3 } from 'h3';
import type { OwnerEmailOutcome } from '@svc-licensing/license-engine';
import type { RouteServices } from '../http/route.js';
import { renderAccountEmail } from '../mail/account-email-template.js';
import { sendServiceEmail } from '../mail/service-email.js';
import { LINK_PATHS } from './links.js';
import { pageResponse as page } from './page-html.js';
import { crossSite, tokenOf } from './pages.js';

const failures: Record<Exclude<OwnerEmailOutcome, { ok: true }>['reason'], { status: number; title: string; text: string }> = {
  unknown: { status: 404, title: 'This link is not valid', text: 'The link is incomplete or unknown. Copy the whole link from the e-mail, or ask for the change again.' },
  used: { status: 410, title: 'This link was already used', text: 'The owner address was already changed with it.' },
  expired: { status: 410, title: 'This link has expired', text: 'A confirmation link works for 24 hours. Ask for the change again on the dashboard.' },
  account_closed: { status: 403, title: 'The account is closed', text: 'The owner address of a closed account cannot change.' },
  taken: { status: 409, title: 'This address is a member', text: 'The address became a member of the account meanwhile: remove the member, then ask for the change again.' },
};

/** Tells the old owner address that the owner address changed; a failure is logged, never answered. */
async function tellOldAddress(services: Pick<RouteServices, 'mail' | 'publicBaseUrl' | 'logError'>, done: Extract<OwnerEmailOutcome, { ok: true }>): Promise<void> {
  const { mail } = services;
  if (mail === null) {
    services.logError('account_email_not_sent', new Error(`no mailer is configured; the owner-address notice for ${done.accountId} was not sent`));
    return;
  }
  const rendered = renderAccountEmail({
    kind: 'owner_email_changed', locale: done.locale, accountName: done.accountName,
    url: `${services.publicBaseUrl.replace(/\/+$/, '')}/dashboard/`, expiresAt: new Date().toISOString(), newAddress: done.to,
  });
  try {
    await sendServiceEmail(mail, done.from, { ...rendered, language: done.locale });
  } catch (error) {
    services.logError('account_email_failed', new Error(`the owner-address notice for ${done.accountId} was not accepted: ${(error as Error)?.message ?? String(error)}`));
  }
}

/**
 * Mounts the page of the link confirming a new owner address: `GET /confirm-owner-email` shows a
 * button (a mail scanner prefetching the link changes nothing), `POST` uses the token: the owner
 * address becomes the link's, the old address is told by e-mail, and the page says so with a link
 * to the dashboard. It signs nobody in: the owner's sessions carry over to the new address.
 */
export function mountOwnerEmailPage(app: H3, services: RouteServices): void {
  const path = LINK_PATHS.owner_email;
  const publicOrigin = new URL(services.publicBaseUrl).origin;
  const dashboard = { label: 'Open the dashboard', href: `${services.publicBaseUrl.replace(/\/+$/, '')}/dashboard/` };
  app.on('GET', path, async (event) => {
    const token = await tokenOf(event, false);
    if (token === '') return page({ title: failures.unknown.title, paragraphs: [failures.unknown.text], link: dashboard }, failures.unknown.status);
    return page({
      title: "Confirm the owner's new address",
      paragraphs: ["Press the button to make this address the account owner's: sign-in links and account e-mails will go here, and the old address is told."],
      button: { label: 'Confirm the new address', token },
    });
  });
  app.on('POST', path, async (event) => {
    if (crossSite(event, publicOrigin)) {
      return page({ title: 'Refused', paragraphs: ['This link must be used from its own page. Open the link from the e-mail again.'] }, 403);
    }
    const outcome = await services.engine.confirmOwnerEmail(await tokenOf(event, true));
    if (!outcome.ok) {
      const f = failures[outcome.reason];
      return page({ title: f.title, paragraphs: [f.text], link: dashboard }, f.status);
    }
    services.afterAnswer('owner_email_notice_failed', () => tellOldAddress(services, outcome));
    return page({
      title: 'The owner address is changed',
      paragraphs: [`${outcome.to} is now the owner address of ${outcome.accountName}. ${outcome.from} was told by e-mail.`],
      link: dashboard,
    });
  });
}
