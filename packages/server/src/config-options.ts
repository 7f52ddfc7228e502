/**
 * The server's configuration options: every CLI option, its environment variable and its default,
 * in one table, so the help text and the README list the same names; and how an option's value is
 * read from the flags, the environment and the defaults. `config.ts` resolves them into settings.
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
  sweepLeases: {
    flag: 'sweep-leases', env: 'SVC_SWEEP_LEASES', default: '0',
    help: 'every this many seconds, record lease.expired for floating leases that lapsed on licenses nobody calls (0: off; no count depends on it)',
  },
  redisUrl: { flag: 'redis-url', env: 'SVC_REDIS_URL', help: 'keep rate-limit counters in Redis, shared by every instance: redis://host:6379/0, ?prefix= for the key prefix (default: the database with --database, else memory)' },
  smtpUrl: { flag: 'smtp-url', env: 'SVC_SMTP_URL', help: 'send e-mails by SMTP: smtp://user:pass@host:587 (STARTTLS), smtps://...:465 (TLS), ?security=none for a local relay' },
  mailFrom: { flag: 'mail-from', env: 'SVC_MAIL_FROM', default: 'licenses@localhost', help: "sender address of customer e-mails when the vendor's account has none" },
  outbox: { flag: 'outbox', env: 'SVC_OUTBOX_DIR', help: 'without --smtp-url, e-mails are written as .eml files here (default <data>/outbox, or ./outbox with --database)' },
  dnsServer: { flag: 'dns-server', env: 'SVC_DNS_SERVER', help: "DNS server(s) that check vendors' sender domains: host[:port], comma-separated (default: the system's)" },
  mailSpf: { flag: 'mail-spf', env: 'SVC_MAIL_SPF', help: "SPF mechanism vendors add to their sender domain's SPF record (default include:<domain of --mail-from>)" },
  notifyAllow: {
    flag: 'notify-allow', env: 'SVC_NOTIFY_ALLOW', multiple: true,
    help: "hosts, IP addresses or CIDR ranges that vendors' notification endpoints may use over http and on private addresses, comma-separated (default: none)",
  },
  providerAApiUrl: {
    flag: 'provider-a-api-url', env: 'SVC_PROVIDER_A_API_URL',
    help: "provider_a's API base URL for sandbox and live integrations alike, unless the per-environment option is given",
  },
  providerAApiUrlLive: {
    flag: 'provider-a-api-url-live', env: 'SVC_PROVIDER_A_API_URL_LIVE',
    help: "provider_a's live API base URL: live integrations look up unknown customers there with their API key",
  },
  providerAApiUrlSandbox: {
    flag: 'provider-a-api-url-sandbox', env: 'SVC_PROVIDER_A_API_URL_SANDBOX',
    help: "provider_a's sandbox API base URL: sandbox integrations look up unknown customers there with their API key",
  },
  name: { flag: 'name', env: 'SVC_ACCOUNT_NAME', help: 'name of the new account' },
  accountName: {
    flag: 'account-name', env: 'SVC_ACCOUNT_NAME',
    help: 'name of the first account, made by the first start of a new data folder (customers see it; default "Default")',
  },
  file: { flag: 'file', env: 'SVC_IMPORT_FILE', help: 'the account export (svc-account-export-v1) to import' },
  keys: {
    flag: 'keys', env: 'SVC_IMPORT_KEYS', multiple: true,
    help: 'a key export (svc-signing-keys-v1) of one product; once per product (environment: comma-separated)',
  },
  ownerEmail: {
    flag: 'owner-email', env: 'SVC_OWNER_EMAIL',
    help: "e-mail address of the account's owner (serve: of the first account, default owner@example.com; sign-in links go there)",
  },
  servicePlan: { flag: 'service-plan', env: 'SVC_SERVICE_PLAN', help: "the account's service plan (default: the host's default plan)" },
  account: { flag: 'account', env: 'SVC_ACCOUNT_ID', help: 'the account ID (acc_...)' },
  json: { flag: 'json', env: 'SVC_JSON', default: 'false', boolean: true, help: 'print one JSON object instead of text, for scripts' },
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
