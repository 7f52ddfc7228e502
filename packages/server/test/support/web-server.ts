/**
 * A real server for the browser tests: the app on a real store, listening on a free port whose
 * address is its public base URL (so sign-in links and redirects point at it), account e-mails and
 * license-key e-mails sent by SMTP to a capturing server, and the real clock.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from 'h3/node';
import { createLicenseEngine, createSecretBox, type LicenseEngine } from '@svc-licensing/license-engine';
import { createApp, createKeyEmailSender, createSmtpMailer } from '../../src/index.js';
import { openTestStore, type StoreKind } from '../helpers/stores.js';
import { startSmtpCapture, type SmtpCapture } from './smtp-capture.js';

export interface WebServer {
  url: string;
  engine: LicenseEngine;
  smtp: SmtpCapture;
  /** The first account, its owner and an API key (for the test's own checks). */
  accountId: string;
  ownerEmail: string;
  apiKey: string;
  /** A vendor API call with the API key. */
  api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** The sign-in link of the newest e-mail to `email` that holds one. */
  linkMailedTo(email: string, after: number): Promise<string>;
  close(): Promise<void>;
}

export async function startWebServer(kind: StoreKind): Promise<WebServer> {
  const store = await openTestStore(kind);
  const smtp = await startSmtpCapture({ starttls: false });
  let handler: (req: IncomingMessage, res: ServerResponse) => unknown = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const engine = createLicenseEngine({ store: store.store(), secrets: createSecretBox(new Uint8Array(randomBytes(32))) });
  const mailer = createSmtpMailer({ host: '127.0.0.1', port: smtp.port, security: 'none' });
  const keyEmails = createKeyEmailSender({ engine, mailer, sender: { fromAddress: 'licenses@service.test' }, publicBaseUrl: url });
  const app = createApp({
    engine,
    publicBaseUrl: url,
    log: false,
    limits: { vendorPerAccount: 100_000, clientPerIp: 100_000, clientPerKeyAndIp: 10_000 },
    hooks: { sendKeyEmail: keyEmails.hook },
    mail: { mailer, fromAddress: 'no-reply@service.test' },
  });
  handler = toNodeHandler(app);

  const ownerEmail = `owner-${Math.random().toString(36).slice(2, 8)}@vendor.test`;
  const { account, apiKey } = await engine.createAccount({ name: 'Acme Software', ownerEmail, servicePlan: 'unlimited' });

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : JSON.parse(text) };
  };

  const linkMailedTo = async (email: string, after: number) => {
    for (let i = 0; i < 200; i++) {
      const found = smtp.messages
        .slice(after)
        .filter((m) => m.envelope.to.includes(email))
        .map((m) => /https?:\/\/\S+\/(?:sign-in|reopen)\?token=[\w%.-]+/.exec(m.mail.text ?? '')?.[0])
        .filter((link): link is string => link !== undefined);
      if (found.length > 0) return found[found.length - 1]!;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no sign-in link was e-mailed to ${email}`);
  };

  return {
    url,
    engine,
    smtp,
    accountId: account.id,
    ownerEmail,
    apiKey: apiKey.key,
    api,
    linkMailedTo,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await smtp.close();
      await store.close();
    },
  };
}
