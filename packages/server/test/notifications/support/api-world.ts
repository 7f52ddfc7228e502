import { afterEach, expect } from 'vitest';
import { parseNotifyAllowance, startNotifications } from '../../../src/notifications/index.js';
import type { Notifications } from '../../../src/notifications/index.js';
import { createSmtpMailer } from '../../../src/mail/smtp-mailer.js';
import { PUBLIC_BASE_URL, createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import type { StoreKind } from '../../support/stores.js';
import { startSmtpCapture } from '../../support/smtp-capture.js';
import type { SmtpCapture } from '../../support/smtp-capture.js';
import { startReceiver } from './receiver.js';
import type { Receiver } from './receiver.js';
import { selfSignedCertificate } from './tls-certificate.js';

// The world of the notification tests through the HTTP API and a store as `serve` runs them: an
// app on a real store, a real HTTPS receiver that verifies each delivery with the standardwebhooks
// package, an SMTP capture for the owner's e-mails, and the dispatcher. The dispatcher's clock is
// the app's (fake) clock, so days of retries pass in a moment; the signatures carry the real time,
// as the receiver's check needs. The retry jitter is fixed at its middle (random 0.5), so 3 days of
// failures are the nominal 13 attempts (with real jitter, 12 to 14). A file importing this module
// gets its worlds closed after each test.

const certificate = selfSignedCertificate(['127.0.0.1']);
const parsed = parseNotifyAllowance(['127.0.0.1']);
if (!parsed.ok) throw new Error(parsed.message);
const allowance = parsed.allowance;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export interface World {
  h: Harness;
  receiver: Receiver;
  smtp: SmtpCapture;
  notifications: Notifications;
  owner: Record<string, string>;
  /** Every line the dispatcher logged, as JSON. */
  logged: string[];
  /** Registers an endpoint at the receiver and lets the receiver verify with its secret. */
  endpoint(json?: Record<string, unknown>): Promise<{ id: string; secret: string }>;
  until(condition: () => boolean | Promise<boolean>, what: string): Promise<void>;
  post(path: string, json?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
  get(path: string): Promise<any>;
}

export async function world(store: StoreKind): Promise<World> {
  const smtp = await startSmtpCapture({ starttls: false });
  cleanups.push(() => smtp.close());
  const receiver = await startReceiver(certificate);
  cleanups.push(() => receiver.close());
  const h = await createHarness({ mode: 'in-process', store }, { notifyAllowance: allowance });
  // What the dispatcher logged besides the receiver's own answers (a store error on a claim or a
  // record, a network failure): a timed-out wait names it, since with the fake clock an unrecorded
  // attempt's claim never expires and the wait cannot end.
  const unexpected: string[] = [];
  const logged: string[] = [];
  const log = (entry: { msg: string; error?: string; reason?: string }) => {
    logged.push(JSON.stringify(entry));
    if (entry.msg === 'endpoint_disabled' || (entry.msg === 'notification_failed' && entry.error === 'http_status')) return;
    unexpected.push(JSON.stringify(entry));
  };
  const mailer = createSmtpMailer({ host: '127.0.0.1', port: smtp.port, security: 'none', timeoutMs: 10_000 });
  const notifications = startNotifications({
    engine: h.engine, allowance, publicBaseUrl: PUBLIC_BASE_URL, mail: { mailer, fromAddress: 'no-reply@svc.test' },
    sender: { trustedCertificates: certificate.cert }, now: () => h.clock.now(), random: () => 0.5, pollIntervalMs: 10, log,
  });
  cleanups.push(() => notifications.stop());
  const owner = (await h.signIn()).headers;
  const call = async (method: string, path: string, json?: unknown, headers: Record<string, string> = owner) => {
    const res = await h.fetch(path, { method, headers: { ...headers, ...(json === undefined ? {} : { 'content-type': 'application/json' }) }, ...(json === undefined ? {} : { body: JSON.stringify(json) }) });
    return { status: res.status, body: (await res.json()) as any };
  };
  // The file's worlds share one MariaDB database, and every world's dispatcher claims the due
  // deliveries of all of them; another world's endpoint secret is sealed with another key, so its
  // deliveries must not outlive their test. A deleted endpoint's deliveries are dropped when due,
  // without opening its secret. Runs before the harness closes (after-hooks run in reverse order).
  const endpointIds: string[] = [];
  cleanups.push(async () => {
    for (const id of endpointIds) await call('DELETE', `/v1/webhook-endpoints/${id}`);
  });
  const until = async (condition: () => boolean | Promise<boolean>, what: string) => {
    const deadline = Date.now() + 20_000;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the dispatcher logged: ${unexpected.join('\n') || 'nothing unexpected'}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return {
    h, receiver, smtp, notifications, owner, until, logged,
    async endpoint(json = {}) {
      const created = await call('POST', '/v1/webhook-endpoints', { url: receiver.url('/hooks/svc'), ...json });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      receiver.secrets.push(created.body.secret);
      endpointIds.push(created.body.id);
      return created.body;
    },
    post: (path, json, headers) => call('POST', path, json, headers),
    get: async (path) => (await call('GET', path)).body,
  };
}

/** The first account's API key as request headers. */
export const key = (w: World) => ({ authorization: `Bearer ${w.h.apiKey}` });

/** A product and a perpetual plan of the first account (or of the account whose key `headers` carry); the plan's id. */
export async function productAndPlan(w: World, headers: Record<string, string> = key(w)): Promise<string> {
  const product = await w.post('/v1/products', { name: 'Editor', keyPrefix: 'EDIT' }, headers);
  const plan = await w.post(`/v1/products/${product.body.id}/plans`, { code: 'life', kind: 'perpetual' }, headers);
  return plan.body.id;
}
