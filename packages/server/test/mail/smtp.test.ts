import { afterEach, describe, expect, it } from 'vitest';
import { buildKeyEmailMessage, type KeyEmailSource } from '../../src/mail/key-email-message.js';
import { createMailer } from '../../src/mail/create-mailer.js';
import { createSmtpMailer } from '../../src/mail/smtp-mailer.js';
import { startSmtpCapture, type SmtpCapture } from '../support/smtp-capture.js';

const source: KeyEmailSource = {
  key: 'PT-ABCDE-FGHJK-MNPQR-STVWX',
  locale: 'en',
  customerEmail: 'ada@example.com',
  customerName: 'Ada Lovelace',
  productName: 'PhotoTool',
  planName: 'Pro',
  senderName: 'Acme Software',
  senderEmail: 'licenses@acme.test',
  replyTo: 'help@acme.test',
};
const defaults = { fromAddress: 'no-reply@svc.test' };

let capture: SmtpCapture | undefined;
afterEach(async () => {
  await capture?.close();
  capture = undefined;
});

describe('SMTP mailer (nodemailer against a real SMTP server)', () => {
  it('delivers the English key e-mail with STARTTLS and AUTH: recipient, sender, reply-to, subject, language, key', async () => {
    capture = await startSmtpCapture({ auth: { user: 'svc', pass: 's3cret' } });
    const mailer = createSmtpMailer({
      host: '127.0.0.1',
      port: capture.port,
      security: 'starttls',
      auth: { user: 'svc', pass: 's3cret' },
      tls: { rejectUnauthorized: false },
    });
    await mailer.send(buildKeyEmailMessage(source, defaults));
    await mailer.close?.();

    const [received] = await capture.waitFor(1);
    expect(received!.envelope).toEqual({ from: 'licenses@acme.test', to: ['ada@example.com'] });
    const mail = received!.mail;
    expect(mail.from?.value).toEqual([{ name: 'Acme Software', address: 'licenses@acme.test' }]);
    expect(mail.replyTo?.value).toEqual([{ name: '', address: 'help@acme.test' }]);
    expect(mail.subject).toBe('Your license key for PhotoTool');
    expect(mail.headers.get('content-language')).toBe('en');
    expect(mail.text).toContain('Hello Ada Lovelace,');
    expect(mail.text).toContain('PT-ABCDE-FGHJK-MNPQR-STVWX');
    expect(mail.html).toContain('PT-ABCDE-FGHJK-MNPQR-STVWX');
    expect(mail.html).toContain('<html lang="en">');
  });

  it('delivers the French e-mail in the license locale, without reply-to when the account has none', async () => {
    capture = await startSmtpCapture({ starttls: false });
    const mailer = createSmtpMailer({ host: '127.0.0.1', port: capture.port, security: 'none' });
    await mailer.send(buildKeyEmailMessage({ ...source, locale: 'fr', replyTo: null }, defaults));

    const [received] = await capture.waitFor(1);
    const mail = received!.mail;
    expect(mail.subject).toBe('Votre clé de licence pour PhotoTool');
    expect(mail.headers.get('content-language')).toBe('fr');
    expect(mail.text).toContain('Bonjour Ada Lovelace,');
    expect(mail.text).toContain('Formule : Pro');
    expect(mail.text).toContain('PT-ABCDE-FGHJK-MNPQR-STVWX');
    expect(mail.html).toContain('<html lang="fr">');
    expect(mail.replyTo).toBeUndefined();
  });

  it('falls back to the product name and the host sender address when the account has no sender', async () => {
    capture = await startSmtpCapture({ secure: true });
    const mailer = createMailer(
      { transport: 'smtp', host: '127.0.0.1', port: capture.port, security: 'tls', tls: { rejectUnauthorized: false } },
      '/nonexistent',
    );
    await mailer.send(buildKeyEmailMessage({ ...source, senderName: null, senderEmail: null }, defaults));

    const [received] = await capture.waitFor(1);
    expect(received!.mail.from?.value).toEqual([{ name: 'PhotoTool', address: 'no-reply@svc.test' }]);
    expect(received!.mail.text).toMatch(/-- \nPhotoTool\n/);
  });

  it('rejects when the server refuses the credentials, and nothing is delivered', async () => {
    capture = await startSmtpCapture({ auth: { user: 'svc', pass: 's3cret' } });
    const mailer = createSmtpMailer({
      host: '127.0.0.1',
      port: capture.port,
      auth: { user: 'svc', pass: 'wrong' },
      tls: { rejectUnauthorized: false },
    });
    await expect(mailer.send(buildKeyEmailMessage(source, defaults))).rejects.toThrow();
    expect(capture.messages).toHaveLength(0);
  });

  it('refuses to send in clear when STARTTLS is required but not offered', async () => {
    capture = await startSmtpCapture({ starttls: false });
    const mailer = createSmtpMailer({ host: '127.0.0.1', port: capture.port, security: 'starttls' });
    await expect(mailer.send(buildKeyEmailMessage(source, defaults))).rejects.toThrow();
    expect(capture.messages).toHaveLength(0);
  });

  it('rejects when no server listens, within the configured timeout', async () => {
    const probe = await startSmtpCapture();
    const port = probe.port;
    await probe.close();
    const mailer = createSmtpMailer({ host: '127.0.0.1', port, security: 'none', timeoutMs: 2_000 });
    await expect(mailer.send(buildKeyEmailMessage(source, defaults))).rejects.toThrow();
  });
});
