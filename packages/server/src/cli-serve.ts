/**
 * `svc-licensing serve`: binds the port, opens the store and the engine, wires mail, webhooks, rate
 * limits, notifications and the purge job into the app, and stops cleanly on SIGTERM and SIGINT.
 */
import type { Store } from '@svc-licensing/license-engine';
import { createApp } from './app.js';
import { openEngine } from './cli-engine.js';
import { ConfigError, leaseSweepSeconds, mailSettings, notifyAllowance, options, redactUrl, senderDomainConfig, serveConfig } from './config.js';
import type { Env, ServeConfig, StoreChoice } from './config.js';
import { createDnsResolver } from './dns-resolver.js';
import type { RateLimitStore } from './http/rate-limit.js';
import { addInitialSignInLink, ensureInitialAccount, initialAccountInput, placeholderWarning } from './initial-account.js';
import { createKeyEmailSender } from './key-email.js';
import { createMailer } from './mail/create-mailer.js';
import type { BoundServer } from './node-server.js';
import { bindServer, ListenError } from './node-server.js';
import { startNotifications } from './notifications/run.js';
import { createProviderAClient } from './provider-a-client.js';
import { providerAApiUrls, unusableApiKeyWarnings } from './provider-a-config.js';
import { startPurgeJob } from './purge-job.js';
import { startLeaseSweeper } from './lease-sweeper.js';
import { createWebhookRoutes } from './routes/webhooks.js';
import type { MySqlStore } from './stores/mysql/index.js';
import { createRedisRateLimitStore } from './stores/redis-rate-limit.js';

function describeStore(choice: StoreChoice): Record<string, string> {
  if (choice.kind === 'embedded') return { store: 'embedded', data: choice.dataDir };
  if (choice.kind === 'mysql') return { store: 'mysql', database: redactUrl(choice.url) };
  return { store: 'memory' };
}

/** A limiter every instance shares: Redis when configured, else the MySQL database; memory for one process. */
async function openRateLimits(
  config: ServeConfig,
  store: Store,
  onError: (error: unknown) => void,
): Promise<{ kind: 'redis' | 'database' | 'memory'; store?: RateLimitStore; close(): Promise<void> }> {
  if (config.redis !== null) {
    const redis = createRedisRateLimitStore({ url: config.redis.url, base: config.redis.base, onError });
    try {
      await redis.ready();
    } catch (error) {
      await redis.close().catch(() => undefined);
      throw new Error(`cannot reach Redis at ${redactUrl(config.redis.url)}: ${(error as Error).message}`);
    }
    return { kind: 'redis', store: redis, close: () => redis.close() };
  }
  if (config.store.kind === 'mysql') {
    if ((store as MySqlStore).galera) {
      // A MEMORY table is not replicated: each node would count alone, and limits would multiply by the node count.
      throw new ConfigError(
        `the database is a Galera cluster node, which does not replicate the rate-limit table (ENGINE=MEMORY): ` +
          `give every instance the same Redis with --${options.redisUrl.flag} (or ${options.redisUrl.env})`,
      );
    }
    const { createMySqlRateLimitStore } = await import('./stores/mysql/index.js');
    return { kind: 'database', store: createMySqlRateLimitStore(store as MySqlStore), close: async () => undefined };
  }
  return { kind: 'memory', close: async () => undefined };
}

/** Runs `serve` until a signal stops it. */
export async function serve(flags: Record<string, unknown>, env: Env): Promise<void> {
  let config = serveConfig(flags, env);
  // The port first: a taken port fails before anything is written to the data folder.
  let bound;
  try {
    bound = await bindServer({ port: config.port, host: config.host, handleSignals: false });
  } catch (error) {
    if (!(error instanceof ListenError)) throw error;
    const { flag, env: variable } = options.port;
    throw new ConfigError(`${error.message}: stop what is listening there, or choose another port with --${flag} <port> or ${variable}=<port> (0 picks a free one)`);
  }
  try {
    if (config.port === 0) config = serveConfig({ ...flags, port: String(bound.port) }, env);
    await startServing(bound, config, flags, env);
  } catch (error) {
    await bound.close();
    throw error;
  }
}

async function startServing(bound: BoundServer, config: ServeConfig, flags: Record<string, unknown>, env: Env): Promise<void> {
  const mail = mailSettings(flags, env, config.store);
  const senderDomains = senderDomainConfig(flags, env, mail.fromAddress);
  const allowance = notifyAllowance(flags, env); // checked at start, before the data folder is touched
  const sweepSeconds = leaseSweepSeconds(flags, env);
  // The dispatcher starts once the engine exists; units that queue notifications wake it.
  let wakeNotifications = (): void => undefined;
  const providerAUrls = providerAApiUrls(flags, env);
  const firstAccount = initialAccountInput(flags, env);
  const providerA = Object.keys(providerAUrls).length === 0 ? undefined : createProviderAClient({ baseUrl: providerAUrls });
  // A journal that cannot be written (disk full) makes every write fail: exit so a supervisor restarts us.
  const { engine, store } = await openEngine(config.store, env, (error) => {
    process.stderr.write(`error: the data folder cannot be written (${(error as Error)?.message ?? String(error)}); exiting\n`);
    process.exit(70);
  }, () => wakeNotifications());
  if (config.store.kind === 'embedded') {
    const created = await ensureInitialAccount(engine, store, config.store.dataDir, firstAccount);
    if (created) {
      const placeholders = placeholderWarning(firstAccount);
      if (placeholders !== null) process.stderr.write(`warning: ${placeholders}\n`);
      // The first sign-in needs no mail server: a one-time link beside the API key, never in the log.
      const expiresAt = await addInitialSignInLink(engine, created, config.publicBaseUrl);
      const dashboard = `open the signInUrl of ${created} in a browser before ${expiresAt} to sign in to ${config.publicBaseUrl}/dashboard/`;
      process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), msg: 'initial account created', credentials: created, dashboard })}\n`);
    }
  }
  for (const warning of await unusableApiKeyWarnings(engine, providerAUrls)) process.stderr.write(`warning: ${warning}\n`);
  const logError = (msg: string, error: unknown, context: Record<string, string>) =>
    process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), msg, ...context, error: (error as Error)?.message ?? String(error) })}\n`);
  const mailer = createMailer(mail.config, config.store.kind === 'embedded' ? config.store.dataDir : '.');
  const keyEmails = createKeyEmailSender({
    engine,
    mailer,
    sender: { fromAddress: mail.fromAddress },
    publicBaseUrl: config.publicBaseUrl,
    onSendError: (error, licenseId) => logError('key_email_failed', error, { licenseId }),
  });
  const routes = createWebhookRoutes({
    keyEmails,
    ...(providerA === undefined ? {} : { providerA }),
    onError: (error, context) => logError('webhook_error', error, context),
  });
  let rateLimits: Awaited<ReturnType<typeof openRateLimits>> | undefined;
  try {
    rateLimits = await openRateLimits(config, store, (error) => logError('redis_error', error, {}));
    const app = createApp({
      engine,
      publicBaseUrl: config.publicBaseUrl,
      limits: config.limits,
      trustProxy: config.trustProxy,
      ...(rateLimits.store === undefined ? {} : { rateLimitStore: rateLimits.store }),
      hooks: { sendKeyEmail: keyEmails.hook },
      mail: { mailer, fromAddress: mail.fromAddress },
      onError: (msg, error) => logError(msg, error, {}),
      senderDomains: { resolver: createDnsResolver({ servers: senderDomains.dnsServers }), spfMechanism: senderDomains.spfMechanism },
      routes,
      ...(providerA === undefined ? {} : { providerA }),
      notifyAllowance: allowance,
      ...(config.store.kind === 'mysql' ? { readiness: () => (store as MySqlStore).health() } : {}),
    });
    bound.serve(app);
  } catch (error) {
    await rateLimits?.close();
    await store.close();
    throw error;
  }
  const running = bound;
  const limiter = rateLimits;
  // Every instance sends notifications: they share the deliveries through the store's claims.
  const notifications = startNotifications({ engine, allowance, mail: { mailer, fromAddress: mail.fromAddress }, publicBaseUrl: config.publicBaseUrl });
  wakeNotifications = notifications.wake;
  const purgeJob = startPurgeJob({
    engine,
    store,
    onPurged: (result) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), msg: 'accounts purged', accounts: result.purged })}\n`),
    onError: (error) => logError('purge_failed', error, {}),
  });
  // Off by default: it only records lease.expired for idle licenses; no count or seat depends on it.
  const leaseSweeper = sweepSeconds === 0 ? null : startLeaseSweeper({
    engine,
    intervalMs: sweepSeconds * 1000,
    onSwept: (result) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), msg: 'lapsed leases recorded', recorded: result.recorded })}\n`),
    onError: (error) => logError('lease_sweep_failed', error, {}),
  });
  let stoppingSince = 0;
  const stop = (signal: string) => {
    if (stoppingSince !== 0) {
      // Ctrl-C reaches every process of the terminal's command, and pnpm passes it on to this one
      // again: a repeat within 2 s is that same request. A later one is a person asking again.
      if (Date.now() - stoppingSince < 2000) return;
      process.stderr.write('stopping now, without waiting for requests in flight or the checkpoint\n');
      process.exit(130);
    }
    stoppingSince = Date.now();
    process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), msg: 'stopping', signal })}\n`);
    // Requests in flight finish, then the store writes its checkpoint and releases the data folder.
    running
      .close()
      .then(() => purgeJob.stop())
      .then(() => leaseSweeper?.stop())
      .then(() => notifications.stop())
      .then(() => limiter.close())
      .then(() => store.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`error while stopping: ${(error as Error).message}\n`);
          process.exit(1);
        },
      );
  };
  // Listened to until the exit: without a listener, a repeated signal would kill the process mid-stop.
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // Only now: a supervisor (or a test) may send SIGTERM the moment it reads this line.
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), msg: 'listening', url: running.url, ...describeStore(config.store), rateLimits: limiter.kind })}\n`);
}
