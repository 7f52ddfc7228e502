import { createTransport } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { Mailer, MailMessage } from './mailer.js';
import { toNodemailerMessage } from './nodemailer-message.js';

/**
 * How the SMTP connection is protected:
 * - `tls`: TLS from the first byte (usually port 465);
 * - `starttls`: plain connection upgraded with STARTTLS, refused when the server does not offer it;
 * - `opportunistic`: STARTTLS when the server offers it, plain otherwise;
 * - `none`: never TLS (a local relay).
 */
export type SmtpSecurity = 'tls' | 'starttls' | 'opportunistic' | 'none';

export interface SmtpMailerOptions {
  host: string;
  /** Default 587, or 465 when `security` is `tls`. */
  port?: number;
  /** Default `tls` on port 465, else `starttls`. */
  security?: SmtpSecurity;
  /** SMTP AUTH credentials; omit for a relay that needs none. */
  auth?: { user: string; pass: string };
  /** Node TLS settings: a private CA, or `rejectUnauthorized: false` for a self-signed test server. */
  tls?: { rejectUnauthorized?: boolean; ca?: string | string[]; servername?: string };
  /** Connection, greeting and socket timeout in milliseconds. Default 30 000. */
  timeoutMs?: number;
}

/**
 * A mailer that hands each e-mail to an SMTP server through nodemailer (one connection per
 * message). `send` rejects when the server refuses the message or cannot be reached.
 *
 * @example
 * ```ts
 * const mailer = createSmtpMailer({
 *   host: 'smtp.example.com',
 *   port: 587,
 *   security: 'starttls',
 *   auth: { user: 'licenses@example.com', pass: process.env.SMTP_PASSWORD! },
 * });
 * await mailer.send(message);
 * await mailer.close?.();
 * ```
 */
export function createSmtpMailer(options: SmtpMailerOptions): Mailer {
  const security = options.security ?? (options.port === 465 ? 'tls' : 'starttls');
  const timeout = options.timeoutMs ?? 30_000;
  const config: SMTPTransport.Options = {
    host: options.host,
    port: options.port ?? (security === 'tls' ? 465 : 587),
    secure: security === 'tls',
    requireTLS: security === 'starttls',
    ignoreTLS: security === 'none',
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  };
  if (options.auth) config.auth = { user: options.auth.user, pass: options.auth.pass };
  if (options.tls) config.tls = { ...options.tls };
  const transport = createTransport(config);
  return {
    async send(message: MailMessage): Promise<void> {
      await transport.sendMail(toNodemailerMessage(message));
    },
    async close(): Promise<void> {
      transport.close();
    },
  };
}
