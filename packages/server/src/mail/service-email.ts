import type { Locale } from '@svc-licensing/license-engine';
import type { Mailer } from './mailer.js';

/** The service's own sender: the mailer, its address and display name (default `Licensing`). */
export interface ServiceSender {
  mailer: Mailer;
  fromAddress: string;
  fromName?: string;
}

/**
 * Sends one of the service's own e-mails (sign-in and owner-address links, notices to an owner) to
 * `address`, from the service's sender, with no reply-to; rejects when the mailer does.
 *
 * @example
 * await sendServiceEmail(mail, 'owner@acme.test', { subject, text, html, language: 'en' });
 */
export function sendServiceEmail(
  sender: ServiceSender,
  address: string,
  message: { subject: string; text: string; html: string; language: Locale },
): Promise<void> {
  return sender.mailer.send({
    from: { name: sender.fromName ?? 'Licensing', address: sender.fromAddress },
    to: { name: '', address },
    replyTo: null,
    subject: message.subject,
    text: message.text,
    html: message.html,
    language: message.language,
  });
}
