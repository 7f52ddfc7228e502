import type { Locale } from '@svc-licensing/license-engine';
import type { DkimKey, MailMessage } from './mailer.js';
import { renderKeyEmail } from './key-email-template.js';

/** Everything the license-key e-mail needs about a license, its product and the vendor's account. */
export interface KeyEmailSource {
  key: string;
  locale: Locale;
  customerEmail: string;
  customerName: string;
  productName: string;
  /** Shown in the e-mail when given. */
  planName?: string | null;
  /** The account's sender name; null or empty: the product name. */
  senderName: string | null;
  /** The account's sender address; null or empty: the host's default sender address. */
  senderEmail: string | null;
  /** The account's reply-to; null or empty: replies go to the sender address. */
  replyTo: string | null;
  /** The customer portal's address when the vendor has one here; the e-mail links to it. */
  portalUrl?: string | null;
  /** The DKIM key of the account's verified sender domain (then `senderEmail` is at that domain); null: unsigned. */
  dkim?: DkimKey | null;
}

/** Host settings for customer e-mails. */
export interface SenderDefaults {
  /** Used as the sender address when the account has none, e.g. `licenses@svc.example`. */
  fromAddress: string;
}

/**
 * Builds the license-key e-mail for a license: from the vendor's sender name and address, to the
 * customer, with the account's reply-to, in the license's language, subject naming the product.
 *
 * @example
 * ```ts
 * const message = buildKeyEmailMessage(
 *   { key: 'PT-ABCDE-FGHJK-MNPQR-STVWX', locale: 'en', customerEmail: 'ada@example.com',
 *     customerName: 'Ada', productName: 'PhotoTool', planName: 'Pro',
 *     senderName: 'Acme Software', senderEmail: 'licenses@acme.test', replyTo: 'help@acme.test' },
 *   { fromAddress: 'no-reply@svc.example' },
 * );
 * await mailer.send(message);
 * ```
 */
export function buildKeyEmailMessage(source: KeyEmailSource, defaults: SenderDefaults): MailMessage {
  const senderName = source.senderName?.trim() || source.productName;
  const rendered = renderKeyEmail({
    locale: source.locale,
    customerName: source.customerName,
    productName: source.productName,
    planName: source.planName ?? null,
    key: source.key,
    senderName,
    portalUrl: source.portalUrl ?? null,
  });
  const message: MailMessage = {
    from: { name: senderName, address: source.senderEmail?.trim() || defaults.fromAddress },
    to: { name: source.customerName, address: source.customerEmail },
    replyTo: source.replyTo?.trim() || null,
    subject: rendered.subject,
    text: rendered.text,
    html: rendered.html,
    language: source.locale,
  };
  if (source.dkim) message.dkim = source.dkim;
  return message;
}
