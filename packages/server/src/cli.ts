#!/usr/bin/env node
/**
 * `svc-licensing` (`pnpm svc` at the repository root): runs the licensing server and its operations.
 *
 *   svc-licensing serve [--port 8787] [--host 127.0.0.1] [--data ./data | --database <url>] [--public-url <url>] [--redis-url <url>] [--trust-proxy]
 *   svc-licensing account create --name <name> --owner-email <email> [--data <dir> | --database <url>]
 *   svc-licensing account import --file <export> --keys <key export> [--keys ...] (--data <dir> | --database <url>)
 *   svc-licensing migrate --database <url>
 *   svc-licensing owner sign-in-link --account <acc_id> [--data <dir> | --database <url>] [--public-url <url>]
 *   svc-licensing account plan <acc_id> <plan> [--data <dir> | --database <url>]
 *   svc-licensing purge [--data <dir> | --database <url>]
 *
 * Every option can also come from its environment variable (see `svc-licensing help`).
 */
import { parseArgs } from 'node:util';
import { createLicenseEngine, createSecretBox, cryptoRandom, sealOperatorSignInLink, systemClock } from '@svc-licensing/license-engine';
import type { LicenseEngine, Store } from '@svc-licensing/license-engine';
import { createApp } from './app.js';
import {
  ConfigError, MASTER_KEY_ENV, chooseStore, mailSettings, optionValue, optionValues, options, redactUrl, requiredValue, senderDomainConfig,
  serveConfig,
} from './config.js';
import { createDnsResolver } from './dns-resolver.js';
import { readAccountExportFile, readKeyExportFile } from './account-import-file.js';
import type { Env, OptionName, OptionSpec, ServeConfig, StoreChoice } from './config.js';
import type { BoundServer } from './node-server.js';
import type { RateLimitStore } from './http/rate-limit.js';
import { addInitialSignInLink, ensureInitialAccount } from './initial-account.js';
import { MASTER_KEY_FILE, checkMasterKey, resolveMasterKey } from './master-key.js';
import { createKeyEmailSender } from './key-email.js';
import { createMailer } from './mail/create-mailer.js';
import { bindServer, ListenError } from './node-server.js';
import { createProviderAClient } from './provider-a-client.js';
import { purgeNow, startPurgeJob } from './purge-job.js';
import { linkUrl } from './session/links.js';
import { createWebhookRoutes } from './routes/webhooks.js';
import { migrateDatabase, openStore } from './stores/index.js';
import type { MySqlStore } from './stores/mysql/index.js';
import { createRedisRateLimitStore } from './stores/redis-rate-limit.js';

interface Command {
  options: OptionName[];
  /** Names of the positional arguments, in order (all required). */
  positionals?: string[];
  summary: string;
  run: (flags: Record<string, unknown>, env: Env, args: string[]) => Promise<void>;
}

const commands: Record<string, Command> = {
  serve: {
    options: [
      'port', 'host', 'data', 'database', 'publicUrl', 'rateLimitVendor', 'rateLimitClientKey', 'rateLimitClientIp', 'trustProxy',
      'redisUrl', 'smtpUrl', 'mailFrom', 'outbox', 'providerAApiUrl', 'dnsServer', 'mailSpf',
    ],
    summary: 'start the HTTP server',
    run: serve,
  },
  'account create': {
    options: ['name', 'ownerEmail', 'servicePlan', 'data', 'database'],
    summary: 'create an account and its first API key; prints {"accountId","apiKey",...} as JSON',
    run: createAccount,
  },
  'account import': {
    options: ['file', 'keys', 'data', 'database'],
    summary: 'create an account from an account export and the key export of each of its products, in one transaction; prints {"accountId","apiKey",...}',
    run: importAccount,
  },
  'account plan': {
    options: ['data', 'database'],
    positionals: ['acc_id', 'plan'],
    summary: "change an account's service plan (audited as account.plan_changed); prints the account as JSON",
    run: changePlan,
  },
  'owner sign-in-link': {
    options: ['account', 'data', 'database', 'publicUrl', 'host', 'port'],
    summary: "print a one-time sign-in link (15 minutes) for the account's owner as JSON {url,...}; works beside a running server",
    run: ownerSignInLink,
  },
  purge: {
    options: ['data', 'database'],
    summary: 'delete every record of the accounts closed more than 30 days ago (the server also does it at start and daily)',
    run: purge,
  },
  migrate: { options: ['database'], summary: 'bring a MySQL/MariaDB database to the current schema', run: migrate },
};

function help(): string {
  const all = Object.values(commands).flatMap((c) => c.options.map((o) => options[o]));
  const flagWidth = Math.max(...all.map((o) => o.flag.length)) + 4;
  const envWidth = Math.max(...all.map((o) => o.env.length)) + 2;
  const lines = ['Usage: svc-licensing <command> [options]', '', 'Commands (every option also from its environment variable):'];
  for (const [name, command] of Object.entries(commands)) {
    const args = (command.positionals ?? []).map((p) => ` <${p}>`).join('');
    lines.push('', `  ${name}${args}: ${command.summary}`);
    for (const option of command.options) {
      const spec: OptionSpec = options[option];
      const def = spec.default === undefined ? '' : spec.boolean ? ' (a switch; off by default)' : ` (default ${spec.default})`;
      lines.push(`    ${`--${spec.flag}`.padEnd(flagWidth)}${spec.env.padEnd(envWidth)}${spec.help}${def}`);
    }
  }
  lines.push('', 'Environment only:', `    ${MASTER_KEY_ENV}  base64 of 32 bytes that encrypts stored secrets; required with --database,`);
  lines.push('                    generated into <data>/master.key on first use of a data folder');
  return `${lines.join('\n')}\n`;
}

/** Opens the store and wires the engine with real ports. */
async function openEngine(choice: StoreChoice, env: Env, onFailure?: (error: unknown) => void): Promise<{ engine: LicenseEngine; store: Store }> {
  // The key first for a database (no connection without it); after the store (which creates the folder) for a data folder.
  const keyFromEnv = choice.kind === 'embedded' ? null : await resolveMasterKey({ fromEnv: env[MASTER_KEY_ENV], ephemeral: choice.kind === 'memory' });
  const store = await openStore(choice, onFailure ? { onFailure } : {});
  try {
    // A new key only for an empty folder: data already there was encrypted with a key that must come back.
    const empty = keyFromEnv !== null || (await store.transaction((tx) => tx.count('accounts', {}))) === 0;
    const { key, source } =
      keyFromEnv ?? (await resolveMasterKey({ fromEnv: env[MASTER_KEY_ENV], dataDir: (choice as { dataDir: string }).dataDir, generate: empty }));
    const secrets = createSecretBox(key);
    await checkMasterKey(store, secrets, source === 'data-folder' ? `${MASTER_KEY_FILE} in the data folder` : MASTER_KEY_ENV);
    const engine = createLicenseEngine({ store, secrets });
    return { engine, store };
  } catch (error) {
    await store.close();
    throw error;
  }
}

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

async function serve(flags: Record<string, unknown>, env: Env): Promise<void> {
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
  const providerAApiUrl = optionValue('providerAApiUrl', flags, env);
  // A journal that cannot be written (disk full) makes every write fail: exit so a supervisor restarts us.
  const { engine, store } = await openEngine(config.store, env, (error) => {
    process.stderr.write(`error: the data folder cannot be written (${(error as Error)?.message ?? String(error)}); exiting\n`);
    process.exit(70);
  });
  if (config.store.kind === 'embedded') {
    const created = await ensureInitialAccount(engine, store, config.store.dataDir);
    if (created) {
      // The first sign-in needs no mail server: a one-time link beside the API key, never in the log.
      const expiresAt = await addInitialSignInLink(engine, created, config.publicBaseUrl);
      const dashboard = `open the signInUrl of ${created} in a browser before ${expiresAt} to sign in to ${config.publicBaseUrl}/dashboard/`;
      process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), msg: 'initial account created', credentials: created, dashboard })}\n`);
    }
  }
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
    ...(providerAApiUrl === undefined ? {} : { providerA: createProviderAClient({ baseUrl: providerAApiUrl }) }),
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
  const purgeJob = startPurgeJob({
    engine,
    store,
    onPurged: (result) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), msg: 'accounts purged', accounts: result.purged })}\n`),
    onError: (error) => logError('purge_failed', error, {}),
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), msg: 'stopping', signal })}\n`);
    // Requests in flight finish, then the store writes its checkpoint and releases the data folder.
    running
      .close()
      .then(() => purgeJob.stop())
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
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  // Only now: a supervisor (or a test) may send SIGTERM the moment it reads this line.
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), msg: 'listening', url: running.url, ...describeStore(config.store), rateLimits: limiter.kind })}\n`);
}

async function createAccount(flags: Record<string, unknown>, env: Env): Promise<void> {
  const name = requiredValue('name', flags, env);
  const ownerEmail = requiredValue('ownerEmail', flags, env);
  const servicePlan = optionValue('servicePlan', flags, env);
  const choice = chooseStore(flags, env);
  if (choice.kind === 'memory') throw new ConfigError('account create on memory: would keep nothing; use --data or a mysql:// --database');
  const { engine, store } = await openEngine(choice, env);
  try {
    const { account, apiKey } = await engine.createAccount({ name, ownerEmail, ...(servicePlan === undefined ? {} : { servicePlan }) });
    process.stdout.write(`${JSON.stringify({ accountId: account.id, apiKey: apiKey.key, apiKeyId: apiKey.id, account })}\n`);
  } finally {
    await store.close();
  }
}

async function importAccount(flags: Record<string, unknown>, env: Env): Promise<void> {
  const file = requiredValue('file', flags, env);
  const keyFiles = optionValues('keys', flags, env);
  if (keyFiles.length === 0) throw new ConfigError('missing --keys <key export> (once per product; or SVC_IMPORT_KEYS)');
  const explicit = typeof flags.data === 'string' || typeof flags.database === 'string' || !!env[options.data.env] || !!env[options.database.env];
  if (!explicit) throw new ConfigError('account import needs --data <dir> or --database <url> (where the account goes)');
  const choice = chooseStore(flags, env);
  if (choice.kind === 'memory') throw new ConfigError('account import on memory: would keep nothing; use --data or a mysql:// --database');
  const keys = await Promise.all(keyFiles.map((path) => readKeyExportFile(path)));
  const { engine, store } = await openEngine(choice, env);
  try {
    const { account, apiKey, counts } = await engine.importAccount({ open: () => readAccountExportFile(file), keys });
    process.stdout.write(`${JSON.stringify({ accountId: account.id, apiKey: apiKey.key, apiKeyId: apiKey.id, counts, account })}\n`);
  } finally {
    await store.close();
  }
}

/** Opens the store of `flags` (not memory) and runs `work` on an engine over it, closing the store after. */
async function withEngine<T>(what: string, flags: Record<string, unknown>, env: Env, work: (engine: LicenseEngine, store: Store) => Promise<T>): Promise<T> {
  const choice = chooseStore(flags, env);
  if (choice.kind === 'memory') throw new ConfigError(`${what} on memory: there is nothing stored; use --data or a mysql:// --database`);
  const { engine, store } = await openEngine(choice, env);
  try {
    return await work(engine, store);
  } finally {
    await store.close();
  }
}

async function changePlan(flags: Record<string, unknown>, env: Env, [accountId, plan]: string[]): Promise<void> {
  const account = await withEngine('account plan', flags, env, (engine) => engine.changeServicePlan(accountId!, plan!));
  process.stdout.write(`${JSON.stringify({ accountId: account.id, plan: account.plan, account })}\n`);
}

async function purge(flags: Record<string, unknown>, env: Env): Promise<void> {
  const result = await withEngine('purge', flags, env, (engine, store) => purgeNow({ engine, store }));
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/**
 * A sign-in link for the owner, made without writing to the store (a running server may hold the
 * embedded store's lock): the claim sealed with the master key (docs/decisions.md). When the store
 * can be opened (a database, or a data folder no server holds), the account is checked first.
 */
async function ownerSignInLink(flags: Record<string, unknown>, env: Env): Promise<void> {
  const accountId = requiredValue('account', flags, env);
  const { publicBaseUrl, store: choice } = serveConfig(flags, env);
  if (choice.kind === 'memory') throw new ConfigError('owner sign-in-link on memory: there is no account; use --data or a mysql:// --database');
  const { key } =
    choice.kind === 'embedded'
      ? await resolveMasterKey({ fromEnv: env[MASTER_KEY_ENV], dataDir: choice.dataDir, generate: false })
      : await resolveMasterKey({ fromEnv: env[MASTER_KEY_ENV] });
  let owner: string | null = null;
  let checked = true;
  try {
    const account = await withEngine('owner sign-in-link', flags, env, (engine) => engine.getAccount(accountId));
    if (account.status !== 'open') throw new ConfigError(`account ${accountId} is closed; the owner reopens it with the link e-mailed at closure`);
    owner = account.ownerEmail;
  } catch (error) {
    // A running server holds the data folder: it checks the account when the link is used.
    if (!/is in use by process/.test((error as Error)?.message ?? '')) throw error;
    checked = false;
  }
  const { token, expiresAt } = sealOperatorSignInLink({ secrets: createSecretBox(key), clock: systemClock, random: cryptoRandom }, accountId);
  const url = linkUrl(publicBaseUrl, 'sign_in', token);
  process.stdout.write(`${JSON.stringify({ url, accountId, ownerEmail: owner, expiresAt, accountChecked: checked })}\n`);
}

async function migrate(flags: Record<string, unknown>, env: Env): Promise<void> {
  const url = requiredValue('database', flags, env);
  const choice = chooseStore({ database: url }, {});
  if (choice.kind !== 'mysql') throw new ConfigError('migrate needs a mysql:// --database URL');
  const result = await migrateDatabase(choice.url);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** Runs the CLI on `argv` (without node and the script); resolves with the exit status. */
export async function main(argv: readonly string[], env: Env = process.env): Promise<number> {
  const [first, second] = argv;
  if (first === undefined || first === 'help' || first === '--help' || first === '-h') {
    process.stdout.write(help());
    return first === undefined ? 1 : 0;
  }
  const name = first === 'account' || first === 'owner' ? `${first} ${second ?? ''}`.trim() : first;
  const command = commands[name];
  if (!command) {
    process.stderr.write(`error: unknown command ${JSON.stringify(name)}\n\n${help()}`);
    return 1;
  }
  try {
    const { values, positionals } = parseArgs({
      args: argv.slice(name.split(' ').length),
      options: Object.fromEntries(
        command.options.map((o) => {
          const spec = options[o] as OptionSpec;
          return [spec.flag, { type: spec.boolean ? ('boolean' as const) : ('string' as const), multiple: spec.multiple === true }];
        }),
      ),
      strict: true,
      allowPositionals: (command.positionals ?? []).length > 0,
    });
    const args = positionals as string[];
    const wanted = command.positionals ?? [];
    if (args.length !== wanted.length) {
      throw new ConfigError(`${name} takes ${wanted.map((p) => `<${p}>`).join(' ') || 'no arguments'}, got ${args.length === 0 ? 'none' : args.map((a) => JSON.stringify(a)).join(' ')}`);
    }
    // Flags by option name (`owner-email` → ownerEmail).
    const flags: Record<string, unknown> = {};
    for (const option of command.options) flags[option] = values[options[option].flag];
    await command.run(flags, env, args);
    return 0;
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message ?? String(error)}\n`);
    if (!ConfigError.is(error) && !(error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') && env.SVC_DEBUG) {
      process.stderr.write(`${(error as Error).stack}\n`);
    }
    return 1;
  }
}

void main(process.argv.slice(2)).then((code) => {
  if (code !== 0) process.exitCode = code;
});
