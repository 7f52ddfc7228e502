import { join } from 'node:path';
import type { MailConfig } from './mail/create-mailer.js';

/**
 * The server's configuration: every CLI option, its environment variable and its default, in one
 * table, so the help text and the README list the same names.
 */

/**
 * A configuration mistake: the CLI prints the message and exits with status 1.
 *
 * @example
 * ```ts
 * try { serveConfig({ port: 'x' }, {}); } catch (error) { if (ConfigError.is(error)) console.error(error.message); }
 * ```
 */
export class ConfigError extends Error {
  readonly code = 'config_error' as const;
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }

  /** Works across module copies, unlike `instanceof`. */
  static is(error: unknown): error is ConfigError {
    return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'config_error';
  }
}

/** One option: its `--flag`, environment variable, default and help line. */
export interface OptionSpec {
  flag: string;
  env: string;
  default?: string;
  help: string;
  /** A switch: `--flag` alone turns it on; its variable takes true/false, 1/0, yes/no, on/off. */
  boolean?: true;
  /** The flag may be given several times (its environment variable: comma-separated). */
  multiple?: boolean;
}

/**
 * Every option of every command, by name.
 *
 * @example
 * ```ts
 * options.port.env; // 'SVC_PORT'
 * ```
 */
export const options = {
  port: { flag: 'port', env: 'SVC_PORT', default: '8787', help: 'TCP port to listen on (0 picks a free one)' },
  host: { flag: 'host', env: 'SVC_HOST', default: '127.0.0.1', help: 'address to listen on (0.0.0.0 for every interface)' },
  data: { flag: 'data', env: 'SVC_DATA_DIR', default: './data', help: 'data folder of the embedded store (created if missing)' },
  database: { flag: 'database', env: 'SVC_DATABASE_URL', help: 'mysql://user:pass@host:3306/db (MySQL/MariaDB) or memory: instead of --data' },
  publicUrl: { flag: 'public-url', env: 'SVC_PUBLIC_URL', help: 'public address of the service without /v1 (default http://<host>:<port>), used in webhook URLs' },
  rateLimitVendor: { flag: 'rate-limit-vendor', env: 'SVC_RATE_LIMIT_VENDOR', default: '5000', help: 'vendor API requests per hour and account' },
  rateLimitClientKey: { flag: 'rate-limit-client-key', env: 'SVC_RATE_LIMIT_CLIENT_KEY', default: '30', help: 'client API calls per hour, license key and IP address' },
  rateLimitClientIp: { flag: 'rate-limit-client-ip', env: 'SVC_RATE_LIMIT_CLIENT_IP', default: '600', help: 'client API calls per hour and IP address' },
  trustProxy: {
    flag: 'trust-proxy', env: 'SVC_TRUST_PROXY', default: 'false', boolean: true,
    help: 'count client API calls by the last X-Forwarded-For entry (only behind a reverse proxy you run that sets it)',
  },
  redisUrl: { flag: 'redis-url', env: 'SVC_REDIS_URL', help: 'keep rate-limit counters in Redis, shared by every instance: redis://host:6379/0, ?prefix= for the key prefix (default: the database with --database, else memory)' },
  smtpUrl: { flag: 'smtp-url', env: 'SVC_SMTP_URL', help: 'send e-mails by SMTP: smtp://user:pass@host:587 (STARTTLS), smtps://...:465 (TLS), ?security=none for a local relay' },
  mailFrom: { flag: 'mail-from', env: 'SVC_MAIL_FROM', default: 'licenses@localhost', help: "sender address of customer e-mails when the vendor's account has none" },
  outbox: { flag: 'outbox', env: 'SVC_OUTBOX_DIR', help: 'without --smtp-url, e-mails are written as .eml files here (default <data>/outbox, or ./outbox with --database)' },
  dnsServer: { flag: 'dns-server', env: 'SVC_DNS_SERVER', help: "DNS server(s) that check vendors' sender domains: host[:port], comma-separated (default: the system's)" },
  mailSpf: { flag: 'mail-spf', env: 'SVC_MAIL_SPF', help: "SPF mechanism vendors add to their sender domain's SPF record (default include:<domain of --mail-from>)" },
  providerAApiUrl: { flag: 'provider-a-api-url', env: 'SVC_PROVIDER_A_API_URL', help: "provider_a's API base URL, to look up unknown customers with the integration's API key" },
  name: { flag: 'name', env: 'SVC_ACCOUNT_NAME', help: 'name of the new account' },
  file: { flag: 'file', env: 'SVC_IMPORT_FILE', help: 'the account export (svc-account-export-v1) to import' },
  keys: {
    flag: 'keys', env: 'SVC_IMPORT_KEYS', multiple: true,
    help: 'a key export (svc-signing-keys-v1) of one product; once per product (environment: comma-separated)',
  },
  ownerEmail: { flag: 'owner-email', env: 'SVC_OWNER_EMAIL', help: "e-mail address of the account's owner" },
  servicePlan: { flag: 'service-plan', env: 'SVC_SERVICE_PLAN', help: "the account's service plan (default: the host's default plan)" },
  account: { flag: 'account', env: 'SVC_ACCOUNT_ID', help: 'the account ID (acc_...)' },
} as const satisfies Record<string, OptionSpec>;

/** `SVC_MASTER_KEY`: base64 of 32 bytes; required with --database, generated into the data folder otherwise. */
export const MASTER_KEY_ENV = 'SVC_MASTER_KEY';

export type OptionName = keyof typeof options;
export type Env = Record<string, string | undefined>;

/**
 * The value of an option: the flag, else its environment variable, else its default (empty counts as unset).
 *
 * @example
 * ```ts
 * optionValue('port', {}, { SVC_PORT: '9000' }); // '9000'
 * ```
 */
export function optionValue(name: OptionName, flags: Record<string, unknown>, env: Env): string | undefined {
  const spec: OptionSpec = options[name];
  const flag = flags[name];
  if (typeof flag === 'string' && flag !== '') return flag;
  const fromEnv = env[spec.env];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  return spec.default;
}

/**
 * Like `optionValue`, but missing is an error naming both ways to set it.
 *
 * @example
 * ```ts
 * requiredValue('name', {}, {}); // throws ConfigError: missing --name (or SVC_ACCOUNT_NAME)
 * ```
 */
export function requiredValue(name: OptionName, flags: Record<string, unknown>, env: Env): string {
  const value = optionValue(name, flags, env);
  if (value === undefined) throw new ConfigError(`missing --${options[name].flag} (or ${options[name].env})`);
  return value;
}

/** Where the records live. */
export type StoreChoice = { kind: 'embedded'; dataDir: string } | { kind: 'memory' } | { kind: 'mysql'; url: string };

/**
 * Chooses the store: `--database` (or `SVC_DATABASE_URL`) when given, else the embedded store in
 * `--data` (or `SVC_DATA_DIR`, default `./data`). Giving both flags is an error.
 *
 * @example
 * ```ts
 * chooseStore({}, { SVC_DATABASE_URL: 'mysql://root@127.0.0.1:3306/test' }); // { kind: 'mysql', url: '...' }
 * ```
 */
export function chooseStore(flags: Record<string, unknown>, env: Env): StoreChoice {
  if (typeof flags.data === 'string' && typeof flags.database === 'string') {
    throw new ConfigError('give either --data or --database, not both');
  }
  const database = typeof flags.data === 'string' ? undefined : optionValue('database', flags, env);
  if (database === undefined) return { kind: 'embedded', dataDir: requiredValue('data', flags, env) };
  if (/^memory:(\/\/)?$/.test(database)) return { kind: 'memory' };
  if (/^(mysql|mariadb):\/\//.test(database)) return { kind: 'mysql', url: database };
  throw new ConfigError(`unsupported database URL ${JSON.stringify(redactUrl(database))}: use mysql://... or memory:`);
}

/**
 * The URL with its password replaced, for messages and logs.
 *
 * @example
 * ```ts
 * redactUrl('mysql://root:secret@db:3306/svc'); // 'mysql://root:***@db:3306/svc'
 * ```
 */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*:)[^@]*@/i, '$1***@');
}

/** How `serve` sends customer e-mails. */
export interface MailSettings {
  config: MailConfig;
  fromAddress: string;
}

const SMTP_SECURITY = ['tls', 'starttls', 'opportunistic', 'none'] as const;

/**
 * Resolves the mail options: SMTP from `--smtp-url`, else `.eml` files in `--outbox` (default
 * `<data>/outbox`), so the server runs without a mail server.
 *
 * @example
 * ```ts
 * mailSettings({ smtpUrl: 'smtps://u:p@mail.example.com' }, {}, { kind: 'memory' }).config; // { transport: 'smtp', host: 'mail.example.com', port: 465, security: 'tls', auth: ... }
 * ```
 */
export function mailSettings(flags: Record<string, unknown>, env: Env, store: StoreChoice): MailSettings {
  const fromAddress = requiredValue('mailFrom', flags, env);
  if (!/^[^\s@]+@[^\s@]+$/.test(fromAddress)) throw new ConfigError(`--mail-from must be an e-mail address, got ${JSON.stringify(fromAddress)}`);
  const smtpUrl = optionValue('smtpUrl', flags, env);
  if (smtpUrl === undefined) {
    const dir = optionValue('outbox', flags, env) ?? (store.kind === 'embedded' ? join(store.dataDir, 'outbox') : './outbox');
    return { config: { transport: 'file', dir }, fromAddress };
  }
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    throw new ConfigError(`--smtp-url is not a URL: ${JSON.stringify(redactUrl(smtpUrl))}`);
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new ConfigError('--smtp-url must start with smtp:// or smtps://');
  const security = url.searchParams.get('security') ?? (url.protocol === 'smtps:' ? 'tls' : 'starttls');
  if (!(SMTP_SECURITY as readonly string[]).includes(security)) {
    throw new ConfigError(`--smtp-url security must be one of ${SMTP_SECURITY.join(', ')}, got ${JSON.stringify(security)}`);
  }
  const config: MailConfig = {
    transport: 'smtp',
    host: url.hostname.replace(/^\[|\]$/g, ''),
    security: security as (typeof SMTP_SECURITY)[number],
    ...(url.port ? { port: Number(url.port) } : {}),
    ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
  };
  return { config, fromAddress };
}

/** The Redis that holds rate-limit counters: the URL for ioredis and the key prefix. */
export interface RedisSettings {
  url: string;
  base: string;
}

/**
 * Resolves `--redis-url` (or `SVC_REDIS_URL`): `redis://` or `rediss://`; its `prefix` query
 * parameter (default `svc-licensing:rate-limit`) is the key prefix and is not passed to ioredis.
 *
 * @example
 * ```ts
 * redisSettings({ redisUrl: 'redis://cache:6379/2?prefix=licensing' }, {}); // { url: 'redis://cache:6379/2', base: 'licensing' }
 * ```
 */
export function redisSettings(flags: Record<string, unknown>, env: Env): RedisSettings | null {
  const text = optionValue('redisUrl', flags, env);
  if (text === undefined) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError('--redis-url is not a URL (redis://[user:password@]host:6379[/db])'); // not echoed: it may hold a password
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new ConfigError('--redis-url must start with redis:// or rediss://');
  const base = url.searchParams.get('prefix') ?? 'svc-licensing:rate-limit';
  if (base === '') throw new ConfigError('--redis-url prefix must not be empty');
  url.searchParams.delete('prefix');
  return { url: url.toString(), base };
}

/** The listening address and public URL of `serve`. */
export interface ServeConfig {
  port: number;
  host: string;
  publicBaseUrl: string;
  store: StoreChoice;
  /** Where rate-limit counters live when not in the store's database or memory: Redis (`--redis-url`). */
  redis: RedisSettings | null;
  /** Requests per hour (the spec's values by default; tests and benchmarks raise them). */
  limits: { vendorPerAccount: number; clientPerKeyAndIp: number; clientPerIp: number };
  /** `--trust-proxy`: client addresses from `X-Forwarded-For` (see `createApp`'s `trustProxy`). */
  trustProxy: boolean;
}

/**
 * A switch's value: `true` from a bare flag, else its variable (true/false, 1/0, yes/no, on/off).
 *
 * @example
 * ```ts
 * booleanValue('trustProxy', {}, { SVC_TRUST_PROXY: '1' }); // true
 * ```
 */
export function booleanValue(name: OptionName, flags: Record<string, unknown>, env: Env): boolean {
  if (flags[name] === true) return true;
  const text = (optionValue(name, flags, env) ?? 'false').toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(text)) return true;
  if (['false', '0', 'no', 'off'].includes(text)) return false;
  throw new ConfigError(`${options[name].env} must be true or false, got ${JSON.stringify(text)}`);
}

function positiveInteger(name: OptionName, flags: Record<string, unknown>, env: Env): number {
  const text = requiredValue(name, flags, env);
  if (!/^[1-9]\d{0,9}$/.test(text)) throw new ConfigError(`--${options[name].flag} must be a positive whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

/**
 * Resolves the options of `serve`.
 *
 * @example
 * ```ts
 * serveConfig({ port: '9000' }, process.env); // { port: 9000, host: '127.0.0.1', publicBaseUrl: 'http://127.0.0.1:9000', ... }
 * ```
 */
export function serveConfig(flags: Record<string, unknown>, env: Env): ServeConfig {
  const portText = requiredValue('port', flags, env);
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) throw new ConfigError(`--port must be a number from 0 to 65535, got ${JSON.stringify(portText)}`);
  const host = requiredValue('host', flags, env);
  const publicUrl = optionValue('publicUrl', flags, env);
  if (publicUrl !== undefined && !/^https?:\/\/[^/\s]+(\/\S*)?$/.test(publicUrl)) {
    throw new ConfigError(`--public-url must be an http(s) URL, got ${JSON.stringify(publicUrl)}`);
  }
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    port,
    host,
    publicBaseUrl: (publicUrl ?? `http://${urlHost}:${port}`).replace(/\/+$/, '').replace(/\/v1$/, ''),
    store: chooseStore(flags, env),
    redis: redisSettings(flags, env),
    limits: {
      vendorPerAccount: positiveInteger('rateLimitVendor', flags, env),
      clientPerKeyAndIp: positiveInteger('rateLimitClientKey', flags, env),
      clientPerIp: positiveInteger('rateLimitClientIp', flags, env),
    },
    trustProxy: booleanValue('trustProxy', flags, env),
  };
}

/** How `serve` checks sender domains: the DNS servers (empty: the system's) and the SPF mechanism to publish. */
export interface SenderDomainConfig {
  dnsServers: string[];
  spfMechanism: string;
}

/**
 * Resolves `--dns-server` and `--mail-spf`. The SPF mechanism defaults to `include:` the domain of
 * the service's sender address (`--mail-from`), whose own SPF record names the servers that send.
 *
 * @example
 * ```ts
 * senderDomainConfig({ dnsServer: '127.0.0.1:5353' }, {}, 'licenses@svc.example');
 * // { dnsServers: ['127.0.0.1:5353'], spfMechanism: 'include:svc.example' }
 * ```
 */
export function senderDomainConfig(flags: Record<string, unknown>, env: Env, fromAddress: string): SenderDomainConfig {
  const servers = (optionValue('dnsServer', flags, env) ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const server of servers) {
    if (!/^(\[[0-9a-fA-F:.]+\](:\d{1,5})?|[0-9a-fA-F:]*:[0-9a-fA-F:.]*|[0-9.]+(:\d{1,5})?)$/.test(server)) {
      throw new ConfigError(`--dns-server must be IP addresses with optional ports (127.0.0.1:53, [::1]:53), got ${JSON.stringify(server)}`);
    }
  }
  const spfMechanism = optionValue('mailSpf', flags, env) ?? `include:${fromAddress.slice(fromAddress.lastIndexOf('@') + 1)}`;
  if (!/^(include|a|mx|ip4|ip6|exists):\S{1,253}$|^(a|mx)$/.test(spfMechanism)) {
    throw new ConfigError(`--mail-spf must be one SPF mechanism such as include:svc.example or ip4:203.0.113.5, got ${JSON.stringify(spfMechanism)}`);
  }
  return { dnsServers: servers, spfMechanism };
}

/**
 * The values of a repeatable option: every `--flag`, else its environment variable split at commas.
 *
 * @example
 * ```ts
 * optionValues('keys', { keys: ['a.json', 'b.json'] }, {}); // ['a.json', 'b.json']
 * ```
 */
export function optionValues(name: OptionName, flags: Record<string, unknown>, env: Env): string[] {
  const flag = flags[name];
  if (Array.isArray(flag) && flag.length > 0) return flag.filter((v): v is string => typeof v === 'string' && v !== '');
  const fromEnv = env[options[name].env];
  return fromEnv ? fromEnv.split(',').map((v) => v.trim()).filter((v) => v !== '') : [];
}
