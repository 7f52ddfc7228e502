import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, notifyAllowance, options } from '../../src/config.js';
import { allowsAddress, allowsHost } from '../../src/notifications/index.js';
import { cleanEnv, runCli } from '../support/cli-process.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('--notify-allow (SVC_NOTIFY_ALLOW)', () => {
  it('is off by default: nothing allowed', () => {
    const allowance = notifyAllowance({}, {});
    expect(allowance.entries).toEqual([]);
    expect(allowsAddress(allowance, '10.0.0.1')).toBe(false);
  });

  it('takes comma-separated entries from the variable, or repeated flags (which win)', () => {
    const fromEnv = notifyAllowance({}, { SVC_NOTIFY_ALLOW: 'hooks.internal, 10.0.0.0/8,::1' });
    expect(fromEnv.entries).toEqual(['hooks.internal', '10.0.0.0/8', '::1']);
    expect(allowsHost(fromEnv, 'hooks.internal')).toBe(true);
    expect(allowsAddress(fromEnv, '10.9.9.9')).toBe(true);
    const fromFlags = notifyAllowance({ notifyAllow: ['billing.corp', '192.168.0.0/16,172.16.0.1'] }, { SVC_NOTIFY_ALLOW: 'hooks.internal' });
    expect(fromFlags.entries).toEqual(['billing.corp', '192.168.0.0/16', '172.16.0.1']);
    expect(allowsHost(fromFlags, 'hooks.internal')).toBe(false);
    expect(options.notifyAllow).toMatchObject({ flag: 'notify-allow', env: 'SVC_NOTIFY_ALLOW', multiple: true });
  });

  it('refuses an entry that is not a host, address or CIDR range, naming the flag and the entry', () => {
    let error: unknown;
    try {
      notifyAllowance({}, { SVC_NOTIFY_ALLOW: 'hooks.internal,10.0.0.0/33' });
    } catch (caught) {
      error = caught;
    }
    expect(ConfigError.is(error)).toBe(true);
    expect((error as Error).message).toBe('--notify-allow: not an IP address or CIDR range (10.0.0.0/8, fd00::/8, 192.168.1.20): "10.0.0.0/33"');
  });

  it('stops `serve` at start when an entry is wrong, before the data folder is written', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-notify-cli-'));
    dirs.push(dir);
    const data = join(dir, 'data');
    const result = await runCli(['serve', '--data', data, '--notify-allow', 'http://hooks.internal'], { ...cleanEnv, SVC_PORT: '0' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error: --notify-allow: a host name, IP address or CIDR range, not a URL: "http://hooks.internal"');
    expect(await readdir(dir)).toEqual([]);
  });
});
