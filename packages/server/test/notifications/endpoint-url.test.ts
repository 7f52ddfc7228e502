import { describe, expect, it } from 'vitest';
import {
  NO_ALLOWANCE, allowsAddress, allowsHost, checkEndpointUrl, classifyAddress, parseNotifyAllowance, resolveEndpointAddresses,
} from '../../src/notifications/index.js';
import type { AddressResolver, NotifyAllowance } from '../../src/notifications/index.js';

function allowance(...entries: string[]): NotifyAllowance {
  const parsed = parseNotifyAllowance(entries);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.allowance;
}

describe('addresses notifications may be sent to', () => {
  it.each([
    ['127.0.0.1', 'loopback'], ['127.255.0.9', 'loopback'], ['::1', 'loopback'],
    ['10.1.2.3', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.1.1', 'private'],
    ['169.254.169.254', 'metadata'], ['169.254.170.2', 'metadata'], ['fd00:ec2::254', 'metadata'], ['168.63.129.16', 'metadata'],
    ['100.100.100.200', 'metadata'], ['192.0.0.192', 'metadata'],
    ['169.254.1.1', 'linkLocal'], ['fe80::1', 'linkLocal'], ['fd12:3456::1', 'uniqueLocal'], ['fc00::1', 'uniqueLocal'],
    ['100.64.0.1', 'carrierGradeNat'], ['224.0.0.1', 'multicast'], ['ff02::1', 'multicast'], ['255.255.255.255', 'broadcast'],
    ['0.0.0.0', 'unspecified'], ['0.1.2.3', 'unspecified'], ['::', 'unspecified'], ['192.0.2.1', 'reserved'], ['240.0.0.1', 'reserved'],
    // IPv4 carried in IPv6 is judged by the IPv4 address
    ['::ffff:127.0.0.1', 'loopback'], ['::ffff:7f00:1', 'loopback'], ['::ffff:10.0.0.1', 'private'], ['::ffff:169.254.169.254', 'metadata'],
    ['64:ff9b::a00:1', 'private'],
  ])('%s is refused as %s', (address, range) => {
    expect(classifyAddress(address)).toEqual({ public: false, range });
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])('%s is public', (address) => {
    expect(classifyAddress(address)).toEqual({ public: true });
  });
});

describe('the operator allowance (--notify-allow)', () => {
  it('takes host names, addresses and CIDR ranges, comma-separated or one per value', () => {
    const a = allowance('Hooks.Internal., 10.0.0.0/8', '[fd00::1]', '192.168.1.20', '::ffff:172.16.0.0/108');
    expect(allowsHost(a, 'hooks.internal')).toBe(true);
    expect(allowsHost(a, 'HOOKS.internal')).toBe(true);
    expect(allowsHost(a, 'other.internal')).toBe(false);
    expect(allowsHost(a, 'x.hooks.internal')).toBe(false); // exact names, no wildcard
    expect(allowsAddress(a, '10.200.3.4')).toBe(true);
    expect(allowsAddress(a, '::ffff:10.200.3.4')).toBe(true);
    expect(allowsAddress(a, '11.0.0.1')).toBe(false);
    expect(allowsHost(a, '[fd00::1]')).toBe(true);
    expect(allowsAddress(a, 'fd00::2')).toBe(false);
    expect(allowsAddress(a, '192.168.1.20')).toBe(true);
    expect(allowsAddress(a, '192.168.1.21')).toBe(false);
    expect(allowsAddress(a, '172.16.9.9')).toBe(true); // the IPv4-mapped range stands for 172.16.0.0/12
    expect(allowsAddress(a, '172.32.0.1')).toBe(false);
  });

  it.each(['10.0.0.0/33', '10.0.0/8', '::1/129', '10.0.0.1/x', 'http://hooks.internal', 'hooks internal', '-bad.example', '127.1', 'fe80::1%eth0'])(
    'refuses the entry %s with a message naming it',
    (entry) => {
      const parsed = parseNotifyAllowance([entry]);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) {
        expect(parsed.entry).toBe(entry);
        expect(parsed.message).toContain(JSON.stringify(entry));
      }
    },
  );
});

describe('an endpoint URL at creation (no DNS)', () => {
  const refused = (url: string, code: string, a: NotifyAllowance = NO_ALLOWANCE) => {
    const checked = checkEndpointUrl(url, a);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.refusal.code).toBe(code);
    return checked.ok ? '' : checked.refusal.message;
  };

  it('must be https', () => {
    expect(refused('http://hooks.example.com/svc', 'https_required')).toMatch(/must use https.*--notify-allow/);
    expect(refused('http://127.0.0.1/hook', 'https_required')).toMatch(/must use https/);
    expect(refused('http://[::1]/hook', 'https_required')).toMatch(/must use https/);
    expect(checkEndpointUrl('https://hooks.example.com/svc?x=1', NO_ALLOWANCE)).toMatchObject({ ok: true, checked: { host: 'hooks.example.com', literal: false } });
  });

  it('must not name a refused address, in any of its spellings', () => {
    expect(refused('https://127.0.0.1/hook', 'private_address')).toBe('127.0.0.1 is a loopback address, which notifications are never sent to');
    expect(refused('https://[::1]/hook', 'private_address')).toMatch(/::1 is a loopback address/);
    expect(refused('https://169.254.169.254/latest/meta-data/', 'private_address')).toMatch(/a cloud metadata address/);
    expect(refused('https://10.1.2.3/', 'private_address')).toMatch(/a private address/);
    expect(refused('https://[::ffff:10.1.2.3]/', 'private_address')).toMatch(/a private address/);
    // WHATWG URL parsing turns these into 127.0.0.1 before the check
    expect(refused('https://2130706433/', 'private_address')).toMatch(/127\.0\.0\.1/);
    expect(refused('https://0x7f.1/', 'private_address')).toMatch(/127\.0\.0\.1/);
    expect(refused('https://127.1/', 'private_address')).toMatch(/127\.0\.0\.1/);
  });

  it('refuses what is not an http(s) URL, credentials, and over-long URLs', () => {
    refused('hooks.example.com/svc', 'invalid_url');
    refused('ftp://hooks.example.com/', 'invalid_url');
    refused('file:///etc/passwd', 'invalid_url');
    refused(`https://hooks.example.com/${'a'.repeat(2100)}`, 'invalid_url');
    expect(refused('https://user:s3cr3tPw@hooks.example.com/', 'credentials_in_url')).not.toContain('s3cr3tPw');
  });

  it('allows http and private addresses for what the allowance names, and only that', () => {
    const a = allowance('hooks.internal', '10.0.0.0/8', '::1');
    expect(checkEndpointUrl('http://hooks.internal:8080/svc', a)).toMatchObject({ ok: true, checked: { allowed: true } });
    expect(checkEndpointUrl('http://10.1.2.3/svc', a)).toMatchObject({ ok: true, checked: { allowed: true, literal: true } });
    expect(checkEndpointUrl('http://[::1]:9000/svc', a)).toMatchObject({ ok: true, checked: { allowed: true, host: '::1' } });
    expect(checkEndpointUrl('https://10.1.2.3/svc', a).ok).toBe(true);
    refused('http://other.internal/svc', 'https_required', a);
    refused('http://127.0.0.1/svc', 'https_required', a);
    refused('https://192.168.0.1/svc', 'private_address', a);
  });
});

describe('an endpoint URL at send (after DNS)', () => {
  const resolver = (map: Record<string, string[]>): AddressResolver => async (name) => {
    const found = map[name];
    if (!found) throw Object.assign(new Error(`${name} not found`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const check = async (url: string, map: Record<string, string[]>, a: NotifyAllowance = NO_ALLOWANCE) => {
    const checked = checkEndpointUrl(url, a);
    if (!checked.ok) throw new Error(checked.refusal.message);
    return resolveEndpointAddresses(checked.checked, a, resolver(map));
  };

  it('refuses a name with any refused address, naming it', async () => {
    expect(await check('https://hooks.example.com/', { 'hooks.example.com': ['127.0.0.1'] })).toEqual({
      ok: false,
      refusal: { code: 'private_address', message: 'hooks.example.com resolves to 127.0.0.1, a loopback address, which notifications are never sent to' },
    });
    expect(await check('https://hooks.example.com/', { 'hooks.example.com': ['8.8.8.8', '::ffff:169.254.169.254'] })).toMatchObject({
      ok: false, refusal: { message: expect.stringContaining('::ffff:169.254.169.254, a cloud metadata address') },
    });
  });

  it('returns every public address to connect to', async () => {
    expect(await check('https://hooks.example.com/', { 'hooks.example.com': ['8.8.8.8', '2606:4700:4700::1111'] })).toEqual({
      ok: true, addresses: [{ address: '8.8.8.8', family: 4 }, { address: '2606:4700:4700::1111', family: 6 }],
    });
  });

  it('lets the allowance cover a resolved address (a range) or every address of a name (the name)', async () => {
    const map = { 'billing.corp': ['10.4.5.6'], 'hooks.internal': ['192.168.7.7', '127.0.0.1'] };
    expect(await check('https://billing.corp/', map, allowance('10.0.0.0/8'))).toMatchObject({ ok: true, addresses: [{ address: '10.4.5.6' }] });
    expect(await check('https://billing.corp/', map, allowance('192.168.0.0/16'))).toMatchObject({ ok: false });
    expect(await check('https://hooks.internal/', map, allowance('hooks.internal'))).toMatchObject({ ok: true });
  });

  it('does not resolve an address literal (it was checked as the URL)', async () => {
    expect(await check('https://8.8.8.8/', {})).toEqual({ ok: true, addresses: [{ address: '8.8.8.8', family: 4 }] });
  });

  it('rejects when the name does not resolve (a transient failure, not a refusal)', async () => {
    await expect(check('https://missing.example.com/', {})).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});
