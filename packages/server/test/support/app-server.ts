/**
 * A real server for the browser apps: the app on a store it is given, listening on a free port
 * whose address is its public base URL (so sign-in links and redirects point at it), account
 * e-mails and license-key e-mails sent by SMTP to a capturing server, the payment-provider webhook
 * receiver, and the real clock. No test
 * runner needed: the browser tests (web-server.ts) and the README screenshots script use it.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from 'h3/node';
import { createLicenseEngine, createSecretBox, type LicenseEngine } from '@svc-licensing/license-engine';
import { createApp, createKeyEmailSender, createSmtpMailer, createWebhookRoutes, type AppOptions } from '../../src/index.js';
import { NO_ALLOWANCE, parseNotifyAllowance, startNotifications, type Notifications, type NotifyAllowance } from '../../src/notifications/index.js';
import type { Store } from '@svc-licensing/license-engine';
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

export interface ServeAppOptions {
  /** Names the server in its public base URL instead of `127.0.0.1` (it still listens on 127.0.0.1). */
  publicHost?: string;
  /** Name of the account made at start (default Acme Software). */
  accountName?: string;
  /**
   * Runs the notification dispatcher as `serve` does, with these hosts allowed (`--notify-allow`,
   * e.g. `['127.0.0.1']` for a receiver on this machine); without it, notifications are queued only.
   */
  notifyAllow?: string[];
  /** Sender domains' DNS resolver and SPF mechanism, as `createApp` takes them (e.g. a resolver asking a test DNS server). */
  senderDomains?: AppOptions['senderDomains'];
}

function allowanceOf(hosts: string[] | undefined): NotifyAllowance {
  if (!hosts) return NO_ALLOWANCE;
  const parsed = parseNotifyAllowance(hosts);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.allowance;
}

/** Serves the app over `store` (closed by `closeStore` when the server closes), with a new account. */
export async function serveApp(store: Store, closeStore: () => Promise<void>, options: ServeAppOptions = {}): Promise<WebServer> {
  const smtp = await startSmtpCapture({ starttls: false });
  let handler: (req: IncomingMessage, res: ServerResponse) => unknown = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://${options.publicHost ?? '127.0.0.1'}:${port}`;

  const notifyAllowance = allowanceOf(options.notifyAllow);
  let notifications: Notifications | null = null;
  const engine = createLicenseEngine({ store, secrets: createSecretBox(new Uint8Array(randomBytes(32))), onNotificationsQueued: () => notifications?.wake() });
  const mailer = createSmtpMailer({ host: '127.0.0.1', port: smtp.port, security: 'none' });
  const keyEmails = createKeyEmailSender({ engine, mailer, sender: { fromAddress: 'licenses@service.test' }, publicBaseUrl: url });
  const app = createApp({
    engine,
    publicBaseUrl: url,
    log: false,
    limits: { vendorPerAccount: 100_000, clientPerIp: 100_000, clientPerKeyAndIp: 10_000 },
    hooks: { sendKeyEmail: keyEmails.hook },
    mail: { mailer, fromAddress: 'no-reply@service.test' },
    notifyAllowance,
    ...(options.senderDomains ? { senderDomains: options.senderDomains } : {}),
    // The payment-provider receiver, as `serve` mounts it.
    routes: createWebhookRoutes({ keyEmails }),
  });
  handler = toNodeHandler(app);
  if (options.notifyAllow) {
    notifications = startNotifications({
      engine, allowance: notifyAllowance, mail: { mailer, fromAddress: 'no-reply@service.test' }, publicBaseUrl: url, pollIntervalMs: 50, log: () => undefined,
    });
  }

  const ownerEmail = `owner-${Math.random().toString(36).slice(2, 8)}@vendor.test`;
  const { account, apiKey } = await engine.createAccount({ name: options.accountName ?? 'Acme Software', ownerEmail, servicePlan: 'unlimited' });

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${port}/v1${path}`, {
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
      await notifications?.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await smtp.close();
      await closeStore();
    },
  };
}
