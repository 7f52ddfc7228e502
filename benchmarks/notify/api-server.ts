// The reference server as `serve` wires it, without the notification dispatcher: the same h3 app
// (`createApp` with the webhook routes, the key e-mail hook, the mailer, the rate limits in the
// database on MariaDB) on the same Node listener, over the built packages, so a benchmark can
// queue notifications through the vendor API and charge their sending to nothing (notify/api.ts).
// `serve` always starts its dispatcher; its sending is measured by notify/dispatch.ts.
//   node --import tsx notify/api-server.ts embedded|mysql <data folder | database URL> <mail folder>
// Prints one JSON line, {"msg":"listening","url","apiKey"}, then one log line per request.
// Started by processes.ts's `startScript`, with the thread pool sized as the bin sizes it.
import { randomBytes } from 'node:crypto';
import { createLicenseEngine, createSecretBox } from '@svc-licensing/license-engine';
import type { Store } from '@svc-licensing/license-engine';
import { createApp, createKeyEmailSender, createMailer, createWebhookRoutes, listen, openStore } from '@svc-licensing/server';
import type { RateLimitStore } from '@svc-licensing/server';

const [kind, where, mailDir] = process.argv.slice(2);
if ((kind !== 'embedded' && kind !== 'mysql') || !where || !mailDir) throw new Error('usage: api-server.ts embedded|mysql <data folder | database URL> <mail folder>');
const store: Store = await openStore(kind === 'embedded' ? { kind, dataDir: where } : { kind, url: where });
let rateLimitStore: RateLimitStore | undefined;
if (kind === 'mysql') {
  const { createMySqlRateLimitStore } = await import('@svc-licensing/server/mysql');
  rateLimitStore = createMySqlRateLimitStore(store as Parameters<typeof createMySqlRateLimitStore>[0]);
}
// `serve` wakes its dispatcher here; nothing is woken, so queued deliveries stay in the outbox.
const engine = createLicenseEngine({ store, secrets: createSecretBox(new Uint8Array(randomBytes(32))), onNotificationsQueued: () => {} });
const { apiKey } = await engine.createAccount({ name: 'Bench', ownerEmail: 'bench@bench.test', servicePlan: 'unlimited' });
const fromAddress = 'licenses@bench.test';
const mailer = createMailer({ transport: 'file', dir: mailDir }, where); // `serve --outbox <mail folder>`
const keyEmails = createKeyEmailSender({ engine, mailer, sender: { fromAddress } });
const onError = (msg: string, error: unknown) => process.stdout.write(`${JSON.stringify({ msg, error: (error as Error)?.message ?? String(error) })}\n`);
const huge = 100_000_000;
const app = createApp({
  engine,
  publicBaseUrl: 'http://127.0.0.1',
  limits: { vendorPerAccount: huge, clientPerKeyAndIp: huge, clientPerIp: huge },
  ...(rateLimitStore === undefined ? {} : { rateLimitStore }),
  hooks: { sendKeyEmail: keyEmails.hook },
  mail: { mailer, fromAddress },
  onError,
  routes: createWebhookRoutes({ keyEmails, onError: (error) => onError('webhook_error', error) }),
});
const server = await listen(app, { port: 0, host: '127.0.0.1', handleSignals: false });
process.on('SIGTERM', () => {
  void server.close().then(() => store.close()).then(() => process.exit(0), () => process.exit(1));
});
process.stdout.write(`${JSON.stringify({ msg: 'listening', url: server.url, apiKey: apiKey.key })}\n`);
