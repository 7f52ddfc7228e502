import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMailer } from '../../src/mail/create-mailer.js';
import { createFileMailer } from '../../src/mail/file-mailer.js';
import { buildKeyEmailMessage, type KeyEmailSource } from '../../src/mail/key-email-message.js';
import { renderKeyEmail } from '../../src/mail/key-email-template.js';

const source: KeyEmailSource = {
  key: 'PT-ABCDE-FGHJK-MNPQR-STVWX',
  locale: 'en',
  customerEmail: 'ada@example.com',
  customerName: 'Ada',
  productName: 'PhotoTool',
  planName: 'Pro',
  senderName: 'Acme Software',
  senderEmail: 'licenses@acme.test',
  replyTo: 'help@acme.test',
};

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'svc-mail-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('file mailer (default transport)', () => {
  it('writes each e-mail as a complete .eml file into <data dir>/outbox by default', async () => {
    const mailer = createMailer(undefined, dataDir);
    await mailer.send(buildKeyEmailMessage(source, { fromAddress: 'no-reply@svc.test' }));
    await mailer.send(buildKeyEmailMessage({ ...source, locale: 'fr', customerEmail: 'bob@example.com' }, { fromAddress: 'x@y.test' }));

    const files = (await readdir(join(dataDir, 'outbox'))).sort();
    expect(files).toHaveLength(2);
    expect(files.every((f) => f.endsWith('.eml'))).toBe(true);
    const mails = await Promise.all(files.map(async (f) => simpleParser(await readFile(join(dataDir, 'outbox', f)))));
    const en = mails.find((m) => m.subject === 'Your license key for PhotoTool');
    const fr = mails.find((m) => m.subject === 'Votre clé de licence pour PhotoTool');
    expect(en?.to && !Array.isArray(en.to) ? en.to.value : []).toEqual([{ name: 'Ada', address: 'ada@example.com' }]);
    expect(en?.from?.value).toEqual([{ name: 'Acme Software', address: 'licenses@acme.test' }]);
    expect(en?.replyTo?.value[0]?.address).toBe('help@acme.test');
    expect(en?.text).toContain('PT-ABCDE-FGHJK-MNPQR-STVWX');
    expect(fr?.headers.get('content-language')).toBe('fr');
    expect(fr?.to && !Array.isArray(fr.to) ? fr.to.value[0]?.address : null).toBe('bob@example.com');
  });

  it('creates the folder it is given and leaves no temporary file behind', async () => {
    const dir = join(dataDir, 'deep', 'outbox');
    await createFileMailer({ dir }).send(buildKeyEmailMessage(source, { fromAddress: 'a@b.test' }));
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z-[0-9a-f]{8}\.eml$/);
  });

  it('makes the folder again when it was removed while the server runs', async () => {
    const dir = join(dataDir, 'outbox');
    const mailer = createFileMailer({ dir });
    await mailer.send(buildKeyEmailMessage(source, { fromAddress: 'a@b.test' }));
    await rm(dir, { recursive: true });
    await mailer.send(buildKeyEmailMessage({ ...source, customerEmail: 'bob@example.com' }, { fromAddress: 'a@b.test' }));
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/\.eml$/);
  });

  it('fails the send when the folder cannot be written, so the e-mail is not reported as sent', async () => {
    const blocked = join(dataDir, 'not-a-folder');
    await writeFile(blocked, 'a file where the folder should be');
    await expect(createFileMailer({ dir: blocked }).send(buildKeyEmailMessage(source, { fromAddress: 'a@b.test' }))).rejects.toThrow();
  });
});

describe('license-key e-mail templates', () => {
  const fields = { customerName: 'Ada', productName: 'PhotoTool', planName: 'Pro', key: 'PT-ABCDE-FGHJK-MNPQR-STVWX', senderName: 'Acme' };

  it('has an English and a French version, each with the key in both bodies', () => {
    const en = renderKeyEmail({ ...fields, locale: 'en' });
    const fr = renderKeyEmail({ ...fields, locale: 'fr' });
    expect(en.subject).toBe('Your license key for PhotoTool');
    expect(fr.subject).toBe('Votre clé de licence pour PhotoTool');
    for (const body of [en.text, en.html, fr.text, fr.html]) expect(body).toContain(fields.key);
    expect(en.text.startsWith('Hello Ada,')).toBe(true);
    expect(fr.text.startsWith('Bonjour Ada,')).toBe(true);
  });

  it('leaves the plan line out when no plan name is given', () => {
    expect(renderKeyEmail({ ...fields, locale: 'en' }).text).toContain('Plan: Pro');
    expect(renderKeyEmail({ ...fields, planName: null, locale: 'en' }).text).not.toContain('Plan:');
    expect(renderKeyEmail({ ...fields, planName: null, locale: 'fr' }).html).not.toContain('Formule');
  });

  it('greets without a name when the customer has none', () => {
    expect(renderKeyEmail({ ...fields, customerName: '', locale: 'en' }).text.startsWith('Hello,\n')).toBe(true);
    expect(renderKeyEmail({ ...fields, customerName: '', locale: 'fr' }).text.startsWith('Bonjour,\n')).toBe(true);
  });

  it('escapes vendor and customer text in the HTML body', () => {
    const html = renderKeyEmail({ ...fields, locale: 'en', productName: '<b>Tool</b> & Co', customerName: '"Eve"' }).html;
    expect(html).toContain('&lt;b&gt;Tool&lt;/b&gt; &amp; Co');
    expect(html).toContain('&quot;Eve&quot;');
    expect(html).not.toContain('<b>Tool</b>');
  });
});
