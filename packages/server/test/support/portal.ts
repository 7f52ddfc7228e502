// Test support for the customer portal: a harness whose account and key e-mails go to a real SMTP
// server, and a customer signed in through the link taken from that server.
import { afterEach, expect } from 'vitest';
import type { AppOptions } from '../../src/index.js';
import { createKeyEmailSender } from '../../src/key-email.js';
import { createSmtpMailer } from '../../src/mail/smtp-mailer.js';
import { startSmtpCapture, type CapturedMail, type SmtpCapture } from './smtp-capture.js';
import { createHarness, PUBLIC_ORIGIN, type Harness, type Setup } from './harness.js';

const captures: SmtpCapture[] = [];
afterEach(async () => {
  await Promise.all(captures.splice(0).map((c) => c.close()));
});

export interface PortalHarness extends Harness {
  smtp: SmtpCapture;
}

/** A harness with the account mailer and the key e-mail hook on a real SMTP server. */
export async function createPortalHarness(setup: Setup, options: Partial<AppOptions> = {}): Promise<PortalHarness> {
  const smtp = await startSmtpCapture({ starttls: false });
  captures.push(smtp);
  const mailer = createSmtpMailer({ host: '127.0.0.1', port: smtp.port, security: 'none' });
  let harness: Harness | undefined;
  const engine = () => harness!.engine;
  const keyEmails = createKeyEmailSender({
    engine: {
      reserveKeyEmail: (accountId, licenseId) => engine().reserveKeyEmail(accountId, licenseId),
      getKeyEmail: (licenseId) => engine().getKeyEmail(licenseId),
      releaseKeyEmail: (licenseId) => engine().releaseKeyEmail(licenseId),
    },
    mailer,
    sender: { fromAddress: 'licenses@svc.test' },
    publicBaseUrl: 'https://licensing.example.test',
  });
  harness = await createHarness(setup, {
    mail: { mailer, fromAddress: 'no-reply@svc.test' },
    hooks: { sendKeyEmail: keyEmails.hook },
    ...options,
  });
  return Object.assign(harness, { smtp });
}

/** The messages sent to `address` so far. */
export const mailsTo = (h: PortalHarness, address: string): CapturedMail[] =>
  h.smtp.messages.filter((m) => m.envelope.to.includes(address.toLowerCase()));

/** Waits until `address` has received `count` messages (the link is mailed after the answer). */
export async function waitForMail(h: PortalHarness, address: string, count = 1): Promise<CapturedMail> {
  for (let i = 0; i < 200; i++) {
    const found = mailsTo(h, address);
    if (found.length >= count) return found[count - 1]!;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no e-mail #${count} to ${address}`);
}


/** The portal sign-in link in a captured e-mail. */
export function portalLinkIn(mail: CapturedMail): string {
  const url = /https:\/\/licensing\.example\.test\/portal\/[^\s"<>]+\/sign-in\?token=[A-Za-z0-9_%-]+/.exec(mail.mail.text ?? '')?.[0];
  if (!url) throw new Error(`no portal link in: ${mail.mail.text}`);
  return url;
}

export interface Customer {
  accountId: string;
  email: string;
  cookie: string;
  /** Headers of a same-origin request from the portal page. */
  headers: Record<string, string>;
}

/** Signs a customer in as a person would: request the link, take it from the SMTP server, press the button. */
export async function signInCustomer(h: PortalHarness, accountId: string, email: string): Promise<Customer> {
  const before = mailsTo(h, email).length;
  const asked = await h.fetch(`/v1/portal/${accountId}/session/link`, {
    method: 'POST', headers: { 'content-type': 'application/json', origin: PUBLIC_ORIGIN }, body: JSON.stringify({ email }),
  });
  expect(asked.status).toBe(202);
  const url = new URL(portalLinkIn(await waitForMail(h, email, before + 1)));
  const res = await h.fetch(`${url.pathname}${url.search}`, { method: 'POST', headers: { origin: PUBLIC_ORIGIN }, redirect: 'manual' });
  expect(res.status).toBe(303);
  const cookie = /^(svc_portal_[A-Za-z0-9_]+=svc_cs_[^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  if (!cookie) throw new Error('no portal cookie');
  return { accountId, email, cookie, headers: { cookie, origin: PUBLIC_ORIGIN } };
}

/** A portal API call as the portal page makes it (same origin, the customer's cookie). */
export async function portalCall(h: Harness, customer: Customer | null, method: string, path: string, body?: unknown, accountId = customer?.accountId) {
  const headers: Record<string, string> = { ...(customer?.headers ?? { origin: PUBLIC_ORIGIN }) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await h.fetch(`/v1/portal/${accountId}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? null : JSON.parse(text) };
}
