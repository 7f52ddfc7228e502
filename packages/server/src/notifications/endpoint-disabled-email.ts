import type { Locale } from '@svc-licensing/license-engine';
import { escapeHtml } from '../mail/_internal/escape-html.js';
import type { EndpointDisabledReason } from './outbox-port.js';

/** The e-mail to an account's owner when the server disabled one of its notification endpoints. */
export interface EndpointDisabledEmail {
  subject: string;
  text: string;
  html: string;
  language: Locale;
}

/**
 * Composes the owner's e-mail about a disabled endpoint: which endpoint, why (`gone`: it answered
 * 410; `failing`: nothing accepted for 3 days; `secret_unreadable`: its stored signing secret does
 * not open), and how to turn it back on.
 *
 * @example
 * ```ts
 * const mail = endpointDisabledEmail({ accountName: 'Acme', url: 'https://hooks.acme.test/', reason: 'failing', dashboardUrl });
 * ```
 */
export function endpointDisabledEmail(fields: { accountName: string; url: string; reason: EndpointDisabledReason; dashboardUrl: string }): EndpointDisabledEmail {
  const why = {
    gone: 'it answered 410 Gone, which asks the service to stop sending',
    failing: 'it has accepted no notification for 3 days (every attempt failed)',
    secret_unreadable: 'its stored signing secret can no longer be read, so nothing can be signed for it. Rotate its secret first (POST /v1/webhook-endpoints/{id}/rotate-secret, or the dashboard), deploy the new one',
  }[fields.reason];
  const subject = `${fields.accountName}: notifications to ${fields.url} are disabled`;
  const lines = [
    `The licensing service stopped sending notifications of ${fields.accountName} to ${fields.url}: ${why}.`,
    'Notifications of new events are not sent to it while it is disabled; those held for it go out when you enable it again',
    `(PATCH /v1/webhook-endpoints/{id} with {"enabled": true}, or the dashboard: ${fields.dashboardUrl}).`,
  ];
  const text = `${lines.join('\n')}\n`;
  const html = `<p>${lines.map(escapeHtml).join('<br>')}</p>`;
  return { subject, text, html, language: 'en' };
}
