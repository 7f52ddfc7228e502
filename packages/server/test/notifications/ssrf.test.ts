import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  NO_ALLOWANCE, checkEndpointUrl, createWebhookSender, dnsServerResolver, generateWebhookSecret, parseNotifyAllowance, pinnedLookup,
  resolveEndpointAddresses, webhookBody,
} from '../../src/notifications/index.js';
import type { AddressResolver, NotifyAllowance } from '../../src/notifications/index.js';
import { startDnsServer } from '../support/dns-server.js';
import type { TestDnsServer } from '../support/dns-server.js';
import { installLoopbackGuard } from './support/loopback-guard.js';
import type { LoopbackGuard } from './support/loopback-guard.js';
import { startReceiver } from './support/receiver.js';
import type { Receiver } from './support/receiver.js';
import { selfSignedCertificate } from './support/tls-certificate.js';
import type { TestCertificate } from './support/tls-certificate.js';

// The sender must never be made to post into the network it runs in. Every refusal here is checked
// at the connection level too: the guard records each TCP connection this process starts and stops
// any that would leave loopback (this machine must never contact 10.x or 169.254.169.254), so
// "refused" means "no connection was even attempted".

let certificate: TestCertificate;
let dns: TestDnsServer;
let https4: Receiver;
let plain4: Receiver;
let plain6: Receiver;
let https6: Receiver;
let elsewhere: Receiver; // on 127.0.0.2: where a redirect or a rebinding would lead
let guard: LoopbackGuard;
const secret = generateWebhookSecret();
const body = webhookBody({ type: 'license.created', timestamp: new Date(), data: { id: 'lic_1' } });

function allowance(...entries: string[]): NotifyAllowance {
  const parsed = parseNotifyAllowance(entries);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.allowance;
}

function send(url: string, allowed: NotifyAllowance, resolve: AddressResolver = dnsServerResolver([dns.address], 1000)) {
  const sender = createWebhookSender({ allowance: allowed, resolve, trustedCertificates: certificate.cert });
  return sender.send({ url, id: 'msg_ssrf', body, secrets: [secret] }).finally(() => sender.close());
}

beforeAll(async () => {
  certificate = selfSignedCertificate(['hooks.vendor.test', 'rebind.vendor.test', 'v6.vendor.test', '127.0.0.1', '::1', '127.0.0.2']);
  dns = await startDnsServer();
  dns.setAddresses('hooks.vendor.test', ['127.0.0.1']);
  dns.setAddresses('v6.vendor.test', ['::1']);
  dns.setAddresses('mapped.vendor.test', ['::ffff:7f00:1']); // dns2 cannot encode the dotted form
  dns.setAddresses('metadata.vendor.test', ['169.254.169.254']);
  dns.setAddresses('intranet.vendor.test', ['10.20.30.40']);
  dns.setAddresses('mixed.vendor.test', ['8.8.8.8', '10.20.30.40']);
  https4 = await startReceiver(certificate, { secrets: [secret] });
  https6 = await startReceiver(certificate, { host: '::1', secrets: [secret] });
  plain4 = await startReceiver(null, { secrets: [secret] });
  plain6 = await startReceiver(null, { host: '::1', secrets: [secret] });
  elsewhere = await startReceiver(certificate, { host: '127.0.0.2', secrets: [secret] });
  guard = installLoopbackGuard();
});
afterAll(async () => {
  guard?.restore();
  for (const r of [https4, https6, plain4, plain6, elsewhere]) await r?.close();
  await dns?.close();
});
beforeEach(() => {
  guard.connections.length = 0;
  for (const r of [https4, https6, plain4, plain6, elsewhere]) r.received.length = 0;
});

describe('without the operator allowance', () => {
  it.each([
    ['http://127.0.0.1', () => plain4.url(), 'https_required'],
    ['https://127.0.0.1', () => https4.url(), 'private_address'],
    ['http://[::1]', () => plain6.url(), 'https_required'],
    ['https://[::1]', () => https6.url(), 'private_address'],
    ['169.254.169.254', () => 'https://169.254.169.254/latest/meta-data/iam/security-credentials/', 'private_address'],
    ['10.x', () => 'https://10.0.0.1/hooks', 'private_address'],
    ['[::ffff:10.0.0.1]', () => 'https://[::ffff:10.0.0.1]/hooks', 'private_address'],
  ])('%s is refused before any connection', async (_name, url, refusal) => {
    const result = await send(url(), NO_ALLOWANCE);
    expect(result).toMatchObject({ ok: false, status: null, error: { code: 'refused', refusal } });
    expect(guard.connections).toEqual([]);
  });

  it.each([
    ['hooks.vendor.test', '127.0.0.1', 'a loopback address'],
    ['v6.vendor.test', '::1', 'a loopback address'],
    ['mapped.vendor.test', '::ffff:127.0.0.1', 'a loopback address'],
    ['metadata.vendor.test', '169.254.169.254', 'a cloud metadata address'],
    ['intranet.vendor.test', '10.20.30.40', 'a private address'],
    ['mixed.vendor.test', '10.20.30.40', 'a private address'],
  ])('a name resolving to %s (%s) is refused after DNS, before any connection', async (name, address, range) => {
    const result = await send(`https://${name}:${https4.port}/hooks`, NO_ALLOWANCE);
    expect(result).toMatchObject({
      ok: false, status: null,
      error: { code: 'refused', refusal: 'private_address', message: `${name} resolves to ${address}, ${range}, which notifications are never sent to` },
    });
    expect(dns.queries).toContain(name);
    expect(guard.connections).toEqual([]);
    expect(https4.received).toHaveLength(0);
  });

  it('a name resolving to loopback through the system resolver (localhost) is refused too', async () => {
    const sender = createWebhookSender({ trustedCertificates: certificate.cert });
    const result = await sender.send({ url: `https://localhost:${https4.port}/`, id: 'msg_l', body, secrets: [secret] });
    sender.close();
    expect(result).toMatchObject({ ok: false, error: { code: 'refused', message: expect.stringMatching(/^localhost resolves to .* a loopback address/) } });
    expect(guard.connections).toEqual([]);
  });

  it('a redirect to a private address is not followed (the endpoint itself allowed, its target not)', async () => {
    https4.handle = (_request, response) => void response.writeHead(302, { location: elsewhere.url('/internal') }).end();
    const result = await send(https4.url('/redirecting'), allowance('127.0.0.1'));
    https4.handle = (_request, response) => void response.writeHead(204).end();
    expect(result).toMatchObject({ ok: false, status: 302, error: { code: 'redirect' } });
    expect(https4.received).toHaveLength(1);
    expect(elsewhere.received).toHaveLength(0);
    expect(guard.connections).toEqual(['127.0.0.1']);
  });
});

describe('with the operator allowance', () => {
  it('delivers to http://127.0.0.1 and http://[::1] when their addresses are allowed', async () => {
    expect(await send(plain4.url(), allowance('127.0.0.1'))).toMatchObject({ ok: true, status: 204 });
    expect(await send(plain6.url(), allowance('::1/128'))).toMatchObject({ ok: true, status: 204 });
    expect(plain4.received[0]?.verifiedWith).toEqual([secret]);
    expect(plain6.received[0]?.verifiedWith).toEqual([secret]);
  });

  it('delivers to a name resolving to loopback when the name is allowed, and over https when its range is', async () => {
    expect(await send(`http://hooks.vendor.test:${plain4.port}/h`, allowance('hooks.vendor.test'))).toMatchObject({ ok: true });
    expect(await send(`https://hooks.vendor.test:${https4.port}/h`, allowance('127.0.0.0/8'))).toMatchObject({ ok: true });
    expect(await send(`https://v6.vendor.test:${https6.port}/h`, allowance('v6.vendor.test'))).toMatchObject({ ok: true });
    // a range lifts the address rule for names, not the https rule: http needs the name itself
    expect(await send(`http://hooks.vendor.test:${plain4.port}/h`, allowance('127.0.0.0/8'))).toMatchObject({ error: { refusal: 'https_required' } });
    expect(plain4.received).toHaveLength(1);
    expect(https4.received).toHaveLength(1);
    expect(https6.received).toHaveLength(1);
  });

  it('passes 169.254.169.254 and 10.x (checked without connecting: this machine never contacts them)', async () => {
    const resolve = dnsServerResolver([dns.address], 1000);
    for (const [url, entry, address] of [
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', '169.254.169.254'],
      ['http://10.0.0.1/hooks', '10.0.0.0/8', '10.0.0.1'],
      ['https://intranet.vendor.test/hooks', '10.0.0.0/8', '10.20.30.40'],
      ['http://intranet.vendor.test/hooks', 'intranet.vendor.test', '10.20.30.40'],
    ] as const) {
      const allowed = allowance(entry);
      const checked = checkEndpointUrl(url, allowed);
      expect(checked.ok).toBe(true);
      if (checked.ok) expect(await resolveEndpointAddresses(checked.checked, allowed, resolve)).toMatchObject({ ok: true, addresses: [{ address }] });
    }
    expect(guard.connections).toEqual([]);
  });

  it('still follows no redirect', async () => {
    https4.handle = (_request, response) => void response.writeHead(301, { location: elsewhere.url('/internal') }).end();
    const result = await send(https4.url(), allowance('127.0.0.0/8'));
    https4.handle = (_request, response) => void response.writeHead(204).end();
    expect(result).toMatchObject({ ok: false, status: 301, error: { code: 'redirect' } });
    expect(elsewhere.received).toHaveLength(0);
  });
});

describe('DNS rebinding', () => {
  it('connects to the address that was checked, even when the name resolves elsewhere a moment later', async () => {
    dns.setAddresses('rebind.vendor.test', ['127.0.0.1']);
    let resolutions = 0;
    const real = dnsServerResolver([dns.address], 1000);
    const rebinding: AddressResolver = async (name) => {
      const found = await real(name);
      resolutions++;
      dns.setAddresses('rebind.vendor.test', ['127.0.0.2']); // the attacker's DNS switches right after the check
      return found;
    };
    // Only 127.0.0.1 is allowed; 127.0.0.2 stands for an internal address. The receivers share a port number only by chance,
    // so the URL names the allowed receiver's port and a connection to 127.0.0.2 would reach nothing or `elsewhere`.
    const result = await send(`https://rebind.vendor.test:${https4.port}/h`, allowance('127.0.0.1'), rebinding);
    expect(result).toMatchObject({ ok: true, status: 204 });
    expect(resolutions).toBe(1);
    expect(https4.received).toHaveLength(1);
    expect(elsewhere.received).toHaveLength(0);
    expect(await real('rebind.vendor.test')).toEqual([{ address: '127.0.0.2', family: 4 }]);
  });

  it('the pinned lookup answers only the checked name, with the checked addresses', async () => {
    const lookup = pinnedLookup('hooks.example.com', [{ address: '8.8.8.8', family: 4 }, { address: '2606:4700::1', family: 6 }]);
    const ask = (name: string, options: object) =>
      new Promise((resolve) => lookup(name, options, (error, address, family) => resolve(error ? (error as { code?: string }).code : { address, family })));
    expect(await ask('hooks.example.com', {})).toEqual({ address: '8.8.8.8', family: 4 });
    expect(await ask('HOOKS.example.com', { family: 6 })).toEqual({ address: '2606:4700::1', family: 6 });
    expect(await ask('hooks.example.com', { all: true })).toEqual({
      address: [{ address: '8.8.8.8', family: 4 }, { address: '2606:4700::1', family: 6 }], family: undefined,
    });
    expect(await ask('evil.example.com', {})).toBe('ENOTFOUND');
  });
});
