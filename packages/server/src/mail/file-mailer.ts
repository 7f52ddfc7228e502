import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import type { Mailer, MailMessage } from './mailer.js';
import { toNodemailerMessage } from './nodemailer-message.js';

export interface FileMailerOptions {
  /** Folder the `.eml` files go to; created when missing. The server uses `<data dir>/outbox`. */
  dir: string;
}

/**
 * A mailer that sends nothing: it writes each e-mail as a complete RFC 5322 message
 * (`<ISO time>-<random>.eml`, openable in any mail client) into `dir`. It is the default, so the
 * service runs without a mail server. A file appears whole or not at all (written under a temporary
 * name, then renamed), so a process watching the folder never reads half a message.
 *
 * The folder is created at the first message (and again if it was removed meanwhile), not before
 * every message: on the benchmark machine each file operation handed to libuv's pool cost the event
 * loop tens of microseconds.
 *
 * @example
 * ```ts
 * const mailer = createFileMailer({ dir: join(dataDir, 'outbox') });
 * await mailer.send(message); // -> <dataDir>/outbox/2026-11-22T01-57-03.123Z-1f2e3d4c.eml
 * ```
 */
export function createFileMailer(options: FileMailerOptions): Mailer {
  const transport = createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  let folderMade = false;
  const write = async (path: string, raw: Buffer) => {
    await writeFile(`${path}.tmp`, raw, { mode: 0o600 });
    await rename(`${path}.tmp`, path);
  };
  return {
    async send(message: MailMessage): Promise<void> {
      const info = await transport.sendMail(toNodemailerMessage(message));
      const raw = (info as unknown as { message: Buffer }).message;
      const name = `${new Date().toISOString().replaceAll(':', '-')}-${randomBytes(4).toString('hex')}.eml`;
      const path = join(options.dir, name);
      if (!folderMade) {
        await mkdir(options.dir, { recursive: true });
        folderMade = true;
      }
      try {
        await write(path, raw);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        await mkdir(options.dir, { recursive: true });
        await write(path, raw);
      }
    },
  };
}
