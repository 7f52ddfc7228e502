import { join } from 'node:path';
import { createFileMailer } from './file-mailer.js';
import type { Mailer } from './mailer.js';
import { createSmtpMailer, type SmtpMailerOptions } from './smtp-mailer.js';

/** Which transport the server sends customer e-mails through. */
export type MailConfig =
  /** One `.eml` file per e-mail into `dir` (default `<data dir>/outbox`). */
  | { transport: 'file'; dir?: string }
  | ({ transport: 'smtp' } & SmtpMailerOptions);

/**
 * Builds the mailer a configuration names. Without a configuration the file transport is used,
 * writing into `<dataDir>/outbox`, so the service runs without a mail server.
 *
 * @example
 * ```ts
 * createMailer(undefined, '/var/lib/svc');                       // files in /var/lib/svc/outbox
 * createMailer({ transport: 'smtp', host: 'localhost', port: 25, security: 'none' }, dataDir);
 * ```
 */
export function createMailer(config: MailConfig | undefined, dataDir: string): Mailer {
  if (!config || config.transport === 'file') {
    return createFileMailer({ dir: config?.dir ?? join(dataDir, 'outbox') });
  }
  const { transport: _transport, ...smtp } = config;
  return createSmtpMailer(smtp);
}
