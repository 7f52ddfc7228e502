import type { Locale } from '@svc-licensing/license-engine';
import { escapeHtml } from '../mail/_internal/escape-html.js';

/** The e-mail to an account's owner when the server disabled one of its notification endpoints. */
export interface EndpointDisabledEmail {
  subject: string;
  text: string;
  html: string;
  language: Locale;
}

/**
 * Composes the owner's e-mail about a disabled endpoint: which endpoint, why (`gone`: it answered
 * 410; `failing`: nothing accepted for 3 days), and how to turn it back on.
 *
 * @example
 * ```ts
 * const mail = endpointDisabledEmail({ accountName: 'Acme', url: 'https://hooks.acme.test/', reason: 'failing', dashboardUrl });
 * ```
 */
export function endpointDisabledEmail(fields: { accountName: string; url: string; reason: 'gone' | 'failing'; dashboardUrl: string }): EndpointDisabledEmail {
  const why =
    fields.reason === 'gone'
      ? 'it answered 410 Gone, which asks the service to stop sending'
      : 'it has accepted no notification for 3 days (every attempt failed)';
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
