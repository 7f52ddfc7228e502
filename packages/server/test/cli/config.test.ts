import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, chooseStore, leaseSweepSeconds, mailSettings, optionValues, senderDomainConfig, serveConfig } from '../../src/config.js';
import { resolveMasterKey } from '../../src/master-key.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-config-'));
  dirs.push(dir);
  return dir;
}
const key32 = Buffer.alloc(32, 7).toString('base64');

describe('serve options', () => {
  it('default to 127.0.0.1:8787 on the embedded store in ./data', () => {
    expect(serveConfig({}, {})).toEqual({
      port: 8787,
      host: '127.0.0.1',
      publicBaseUrl: 'http://127.0.0.1:8787',
      store: { kind: 'embedded', dataDir: './data' },
      redis: null,
      limits: { vendorPerAccount: 5000, clientPerKeyAndIp: 30, clientPerIp: 600 },
      trustProxy: false,
    });
  });

  it('come from the environment, and a flag beats its environment variable', () => {
    const env = { SVC_PORT: '9000', SVC_HOST: '0.0.0.0', SVC_DATA_DIR: '/srv/svc', SVC_PUBLIC_URL: 'https://lic.example.com/v1/', SVC_RATE_LIMIT_CLIENT_IP: '100000' };
    expect(serveConfig({}, env)).toEqual({
      port: 9000,
      host: '0.0.0.0',
      publicBaseUrl: 'https://lic.example.com',
      store: { kind: 'embedded', dataDir: '/srv/svc' },
      redis: null,
      limits: { vendorPerAccount: 5000, clientPerKeyAndIp: 30, clientPerIp: 100000 },
      trustProxy: false,
    });
    expect(serveConfig({ port: '9100', data: '/tmp/x' }, env)).toMatchObject({ port: 9100, store: { dataDir: '/tmp/x' } });
  });

  it('take --trust-proxy as a switch, or SVC_TRUST_PROXY as true/false, and refuse another value', () => {
    expect(serveConfig({ trustProxy: true }, {}).trustProxy).toBe(true);
    for (const on of ['true', '1', 'YES', 'on']) expect(serveConfig({}, { SVC_TRUST_PROXY: on }).trustProxy).toBe(true);
    for (const off of ['false', '0', 'no', 'off', '']) expect(serveConfig({}, { SVC_TRUST_PROXY: off }).trustProxy).toBe(false);
    expect(serveConfig({ trustProxy: true }, { SVC_TRUST_PROXY: 'false' }).trustProxy).toBe(true);
    expect(() => serveConfig({}, { SVC_TRUST_PROXY: 'maybe' })).toThrow(/SVC_TRUST_PROXY must be true or false/);
  });

  it('refuse a bad port or public URL with a message naming the option', () => {
    expect(() => serveConfig({ port: 'eighty' }, {})).toThrow(/--port must be a number/);
    expect(() => serveConfig({}, { SVC_PORT: '70000' })).toThrow(/--port/);
    expect(() => serveConfig({ publicUrl: 'ftp://x' }, {})).toThrow(/--public-url/);
    expect(() => serveConfig({ rateLimitClientKey: '0' }, {})).toThrow(/--rate-limit-client-key must be a positive whole number/);
  });
});

describe('redis for rate limits', () => {
  it('takes --redis-url (or SVC_REDIS_URL), its prefix parameter as the key prefix, not passed on', () => {
    expect(serveConfig({}, { SVC_REDIS_URL: 'redis://cache:6379' }).redis).toEqual({ url: 'redis://cache:6379', base: 'svc-licensing:rate-limit' });
    expect(serveConfig({ redisUrl: 'rediss://u:p@cache:6380/2?prefix=acme&family=6' }, { SVC_REDIS_URL: 'redis://other' }).redis).toEqual({
      url: 'rediss://u:p@cache:6380/2?family=6',
      base: 'acme',
    });
  });

  it('refuses a URL that is not redis:// or rediss:// without echoing its password', () => {
    expect(() => serveConfig({ redisUrl: 'http://u:secret@cache' }, {})).toThrow(/--redis-url must start with redis:\/\//);
    expect(() => serveConfig({ redisUrl: 'redis://cache?prefix=' }, {})).toThrow(/prefix must not be empty/);
    let error: unknown;
    try {
      serveConfig({ redisUrl: 'redis//u:secret@cache' }, {});
    } catch (e) {
      error = e;
    }
    expect((error as Error).message).toMatch(/--redis-url is not a URL/);
    expect((error as Error).message).not.toContain('secret');
  });
});

describe('store choice', () => {
  it('takes --database (or SVC_DATABASE_URL) over the data folder, and refuses both flags at once', () => {
    expect(chooseStore({}, { SVC_DATABASE_URL: 'mysql://root@127.0.0.1:3306/test' })).toEqual({ kind: 'mysql', url: 'mysql://root@127.0.0.1:3306/test' });
    expect(chooseStore({ database: 'memory:' }, {})).toEqual({ kind: 'memory' });
    expect(chooseStore({ data: './d' }, { SVC_DATABASE_URL: 'mysql://x/y' })).toEqual({ kind: 'embedded', dataDir: './d' });
    expect(() => chooseStore({ data: './d', database: 'memory:' }, {})).toThrow(/either --data or --database/);
  });

  it('refuses an unknown database URL without echoing its password', () => {
    let error: unknown;
    try {
      chooseStore({ database: 'postgres://u:hunter2@h/db' }, {});
    } catch (e) {
      error = e;
    }
    expect(ConfigError.is(error)).toBe(true);
    expect((error as Error).message).toContain('postgres://u:***@h/db');
    expect((error as Error).message).not.toContain('hunter2');
  });
});

describe('lease sweeper option', () => {
  it('is off (0) unless --sweep-leases or SVC_SWEEP_LEASES gives whole seconds; anything else is a config error naming the flag', () => {
    expect(leaseSweepSeconds({}, {})).toBe(0);
    expect(leaseSweepSeconds({ sweepLeases: '300' }, { SVC_SWEEP_LEASES: '60' })).toBe(300);
    expect(leaseSweepSeconds({}, { SVC_SWEEP_LEASES: '60' })).toBe(60);
    for (const bad of ['-1', '1.5', 'often', '007']) {
      expect(() => leaseSweepSeconds({ sweepLeases: bad }, {}), bad).toThrow(/--sweep-leases must be a whole number of seconds/);
    }
  });
});

describe('mail options', () => {
  it('write e-mails as files into the data folder unless an SMTP URL is given', () => {
    expect(mailSettings({}, {}, { kind: 'embedded', dataDir: '/srv/svc' })).toEqual({
      config: { transport: 'file', dir: join('/srv/svc', 'outbox') },
      fromAddress: 'licenses@localhost',
    });
    expect(mailSettings({ outbox: '/var/mail/svc' }, { SVC_MAIL_FROM: 'keys@acme.test' }, { kind: 'memory' })).toEqual({
      config: { transport: 'file', dir: '/var/mail/svc' },
      fromAddress: 'keys@acme.test',
    });
  });

  it('read host, port, security and credentials from SVC_SMTP_URL', () => {
    expect(mailSettings({}, { SVC_SMTP_URL: 'smtps://user%40x:p%3Ass@mail.example.com' }, { kind: 'memory' }).config).toEqual({
      transport: 'smtp',
      host: 'mail.example.com',
      security: 'tls',
      auth: { user: 'user@x', pass: 'p:ss' },
    });
    expect(mailSettings({ smtpUrl: 'smtp://127.0.0.1:2525?security=none' }, {}, { kind: 'memory' }).config).toEqual({
      transport: 'smtp',
      host: '127.0.0.1',
      port: 2525,
      security: 'none',
    });
    expect(() => mailSettings({ smtpUrl: 'http://x' }, {}, { kind: 'memory' })).toThrow(/smtp:\/\/ or smtps:\/\//);
    expect(() => mailSettings({ smtpUrl: 'smtp://x?security=maybe' }, {}, { kind: 'memory' })).toThrow(/security must be one of/);
    expect(() => mailSettings({ mailFrom: 'nobody' }, {}, { kind: 'memory' })).toThrow(/--mail-from/);
  });
});

describe('master key', () => {
  it('is generated into the data folder on first use (mode 0600, with a warning), then reused', async () => {
    const dir = await tempDir();
    const warnings: string[] = [];
    const first = await resolveMasterKey({ fromEnv: undefined, dataDir: dir, warn: (m) => warnings.push(m) });
    expect(first.source).toBe('generated');
    expect(first.key).toHaveLength(32);
    expect(warnings).toEqual([expect.stringContaining(join(dir, 'master.key'))]);
    expect((await stat(join(dir, 'master.key'))).mode & 0o777).toBe(0o600);
    const second = await resolveMasterKey({ fromEnv: undefined, dataDir: dir, warn: (m) => warnings.push(m) });
    expect(second).toEqual({ key: first.key, source: 'data-folder' });
    expect(warnings).toHaveLength(1);
  });

  it('comes from SVC_MASTER_KEY when set, and must match a key already in the data folder', async () => {
    const dir = await tempDir();
    expect(await resolveMasterKey({ fromEnv: key32, dataDir: dir })).toEqual({ key: new Uint8Array(Buffer.alloc(32, 7)), source: 'environment' });
    await writeFile(join(dir, 'master.key'), `${Buffer.alloc(32, 9).toString('base64')}\n`);
    await expect(resolveMasterKey({ fromEnv: key32, dataDir: dir })).rejects.toThrow(/differs from the key/);
    expect(await readFile(join(dir, 'master.key'), 'utf8')).toBe(`${Buffer.alloc(32, 9).toString('base64')}\n`);
  });

  it('is not generated for a folder that already holds data (its secrets need their own key back)', async () => {
    const dir = await tempDir();
    await expect(resolveMasterKey({ fromEnv: undefined, dataDir: dir, generate: false })).rejects.toThrow(/holds data but no master\.key/);
    expect((await resolveMasterKey({ fromEnv: key32, dataDir: dir, generate: false })).source).toBe('environment');
  });

  it('is required from the environment for a database, and must be 32 bytes of base64', async () => {
    await expect(resolveMasterKey({ fromEnv: undefined })).rejects.toThrow(/SVC_MASTER_KEY is required/);
    await expect(resolveMasterKey({ fromEnv: Buffer.alloc(16).toString('base64') })).rejects.toThrow(/32 random bytes/);
    expect((await resolveMasterKey({ fromEnv: key32 })).source).toBe('environment');
    expect((await resolveMasterKey({ fromEnv: undefined, ephemeral: true })).key).toHaveLength(32);
  });
});

describe('sender-domain and import options', () => {
  it('--dns-server takes IP addresses with optional ports; --mail-spf defaults to include: the domain of --mail-from', () => {
    expect(senderDomainConfig({}, {}, 'licenses@svc.example')).toEqual({ dnsServers: [], spfMechanism: 'include:svc.example' });
    expect(senderDomainConfig({ dnsServer: '127.0.0.1:5353, [::1]:53' }, {}, 'a@b.test')).toEqual({
      dnsServers: ['127.0.0.1:5353', '[::1]:53'], spfMechanism: 'include:b.test',
    });
    expect(senderDomainConfig({}, { SVC_DNS_SERVER: '10.0.0.53', SVC_MAIL_SPF: 'ip4:203.0.113.5' }, 'a@b.test')).toEqual({
      dnsServers: ['10.0.0.53'], spfMechanism: 'ip4:203.0.113.5',
    });
    for (const [flags, message] of [
      [{ dnsServer: 'dns.example.com' }, /--dns-server must be IP addresses/],
      [{ mailSpf: 'v=spf1 include:x -all' }, /--mail-spf must be one SPF mechanism/],
    ] as const) {
      expect(() => senderDomainConfig(flags, {}, 'a@b.test')).toThrow(message);
      expect(() => senderDomainConfig(flags, {}, 'a@b.test')).toThrow(ConfigError);
    }
  });

  it('--keys may be given once per product, or as a comma-separated SVC_IMPORT_KEYS', () => {
    expect(optionValues('keys', { keys: ['a.json', 'b.json'] }, { SVC_IMPORT_KEYS: 'c.json' })).toEqual(['a.json', 'b.json']);
    expect(optionValues('keys', {}, { SVC_IMPORT_KEYS: 'c.json, d.json' })).toEqual(['c.json', 'd.json']);
    expect(optionValues('keys', {}, {})).toEqual([]);
  });
});
