import { join } from 'node:path';
import type { MailConfig } from './mail/create-mailer.js';
import { parseNotifyAllowance } from './notifications/allowance.js';
import type { NotifyAllowance } from './notifications/allowance.js';
import { booleanValue, ConfigError, optionValue, optionValues, options, requiredValue, type Env, type OptionName } from './config-options.js';

/**
 * The server's configuration: the settings of `serve` (store, mail, Redis, sender domains,
 * notification allowance) resolved from the options of `config-options.ts`, which it re-exports.
 */

export { booleanValue, ConfigError, MASTER_KEY_ENV, optionValue, optionValues, options, requiredValue } from './config-options.js';
export type { Env, OptionName, OptionSpec } from './config-options.js';

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

/**
 * `--sweep-leases`: seconds between two sweeps of lapsed floating leases, or 0 (the default) for no
 * sweeper (docs/floating-seats.md, "The sweeper").
 *
 * @example
 * ```ts
 * leaseSweepSeconds({ sweepLeases: '300' }, {}); // 300
 * ```
 */
export function leaseSweepSeconds(flags: Record<string, unknown>, env: Env): number {
  const text = requiredValue('sweepLeases', flags, env);
  if (!/^(0|[1-9]\d{0,7})$/.test(text)) throw new ConfigError(`--${options.sweepLeases.flag} must be a whole number of seconds (0: off), got ${JSON.stringify(text)}`);
  return Number(text);
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
 * Resolves `--notify-allow` (or `SVC_NOTIFY_ALLOW`): hosts, addresses and CIDR ranges exempt from
 * the notification endpoints' https and public-address rules; each flag may hold several,
 * comma-separated.
 *
 * @example
 * ```ts
 * notifyAllowance({}, { SVC_NOTIFY_ALLOW: 'hooks.internal,10.0.0.0/8' }).entries; // ['hooks.internal', '10.0.0.0/8']
 * ```
 */
export function notifyAllowance(flags: Record<string, unknown>, env: Env): NotifyAllowance {
  const parsed = parseNotifyAllowance(optionValues('notifyAllow', flags, env));
  if (!parsed.ok) throw new ConfigError(`--${options.notifyAllow.flag}: ${parsed.message}`);
  return parsed.allowance;
}
