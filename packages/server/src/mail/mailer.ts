import type { Locale } from '@svc-licensing/license-engine';

/** A mailbox: display name and address. */
export interface MailAddress {
  /** Display name; empty for none. */
  name: string;
  address: string;
}

/**
 * One e-mail, ready to send: both a plain-text and an HTML body, the language it is written in,
 * and an optional reply-to address (null: replies go to the sender).
 */
export interface MailMessage {
  from: MailAddress;
  to: MailAddress;
  replyTo: string | null;
  subject: string;
  text: string;
  html: string;
  /** Sent as the `Content-Language` header. */
  language: Locale;
  /** DKIM-sign the message with this key (the vendor's verified sender domain); absent: unsigned. */
  dkim?: DkimKey;
}

/** A DKIM signing key: `d=` domain, selector and the PEM private key (never logged). */
export interface DkimKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

/**
 * The mail port: the server sends every customer e-mail through one of these. Ready adapters:
 * `createSmtpMailer` (nodemailer over SMTP) and `createFileMailer` (one `.eml` file per e-mail).
 * `send` resolves once the message is accepted (by the SMTP server, or written to disk) and
 * rejects when it is not; the caller decides what a failure means.
 *
 * @example
 * ```ts
 * const mailer: Mailer = createFileMailer({ dir: '/var/lib/svc/outbox' });
 * await mailer.send({
 *   from: { name: 'Acme', address: 'licenses@acme.test' },
 *   to: { name: 'Ada', address: 'ada@example.com' },
 *   replyTo: null,
 *   subject: 'Hello',
 *   text: 'Hello',
 *   html: '<p>Hello</p>',
 *   language: 'en',
 * });
 * ```
 */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  /** Releases connections; a mailer that holds none may omit it. */
  close?(): Promise<void>;
}
