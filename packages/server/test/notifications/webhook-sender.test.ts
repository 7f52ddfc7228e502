import { once } from 'node:events';
import { createServer as createTlsServer } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createWebhookSender, dnsServerResolver, generateWebhookSecret, parseNotifyAllowance, webhookBody,
} from '../../src/notifications/index.js';
import type { NotifyAllowance, WebhookSenderOptions } from '../../src/notifications/index.js';
import { startDnsServer } from '../support/dns-server.js';
import type { TestDnsServer } from '../support/dns-server.js';
import { startReceiver } from './support/receiver.js';
import type { Receiver } from './support/receiver.js';
import { selfSignedCertificate } from './support/tls-certificate.js';
import type { TestCertificate } from './support/tls-certificate.js';

// A real vendor backend: an HTTPS server on loopback with a self-signed certificate for
// hooks.vendor.test, which a real DNS server on loopback resolves to 127.0.0.1. Loopback is refused
// by default, so these tests allow 127.0.0.1 (the address, not the name: the name is still resolved
// and its address checked); the SSRF tests show the refusals.

let certificate: TestCertificate;
let dns: TestDnsServer;
let receiver: Receiver;
const secret = generateWebhookSecret();
const loopback = allowance('127.0.0.1');

function allowance(...entries: string[]): NotifyAllowance {
  const parsed = parseNotifyAllowance(entries);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.allowance;
}

function sender(options: WebhookSenderOptions = {}) {
  return createWebhookSender({ allowance: loopback, resolve: dnsServerResolver([dns.address], 1000), trustedCertificates: certificate.cert, ...options });
}

const body = webhookBody({ type: 'license.created', timestamp: new Date('2025-03-01T12:00:00Z'), data: { id: 'lic_1', event: { id: 'evt_1' } } });

beforeAll(async () => {
  certificate = selfSignedCertificate(['hooks.vendor.test', 'other.vendor.test', '127.0.0.1']);
  dns = await startDnsServer();
  dns.setAddresses('hooks.vendor.test', ['127.0.0.1']);
  dns.setAddresses('wrong-name.vendor.test', ['127.0.0.1']);
  receiver = await startReceiver(certificate, { secrets: [secret] });
});
afterAll(async () => {
  await receiver?.close();
  await dns?.close();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.secrets = [secret];
  receiver.handle = (_request, response) => void response.writeHead(204).end();
});

describe('one delivery attempt', () => {
  it('POSTs the body signed per Standard Webhooks, which the standardwebhooks package verifies', async () => {
    const s = sender();
    const result = await s.send({ url: receiver.url('/hooks/svc?v=1', 'hooks.vendor.test'), id: 'msg_abc', body, secrets: [secret] });
    s.close();
    expect(result).toMatchObject({ ok: true, status: 204, responseBody: '' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    const [request] = receiver.received;
    expect(request).toMatchObject({ method: 'POST', path: '/hooks/svc?v=1', body, verifiedWith: [secret] });
    expect(request?.payload).toEqual(JSON.parse(body));
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json', 'webhook-id': 'msg_abc', host: `hooks.vendor.test:${receiver.port}`, 'user-agent': expect.stringMatching(/^svc-licensing/),
    });
    expect(Math.abs(Number(request?.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
  });

  it('signs with both secrets during a rotation, so a receiver holding the old or the new one verifies', async () => {
    const fresh = generateWebhookSecret();
    receiver.secrets = [secret, fresh, generateWebhookSecret()];
    const s = sender();
    await s.send({ url: receiver.url('/r', 'hooks.vendor.test'), id: 'msg_rot', body, secrets: [fresh, secret] });
    s.close();
    expect(receiver.received[0]?.verifiedWith).toEqual([secret, fresh]);
  });

  it('counts any 2xx as success and keeps the answer', async () => {
    const s = sender();
    for (const status of [200, 201, 202, 299]) {
      receiver.handle = (_request, response) => void response.writeHead(status, { 'content-type': 'text/plain' }).end(`ok ${status}`);
      expect(await s.send({ url: receiver.url(), id: `msg_${status}`, body, secrets: [secret] })).toMatchObject({ ok: true, status, responseBody: `ok ${status}` });
    }
    s.close();
  });

  it('reports other statuses as failures with the answer, and 410 Gone as gone', async () => {
    const s = sender();
    receiver.handle = (_request, response) => void response.writeHead(500).end('database down');
    expect(await s.send({ url: receiver.url(), id: 'msg_500', body, secrets: [secret] })).toMatchObject({
      ok: false, status: 500, responseBody: 'database down', error: { code: 'http_status', message: 'the endpoint answered 500' },
    });
    receiver.handle = (_request, response) => void response.writeHead(410).end();
    expect(await s.send({ url: receiver.url(), id: 'msg_410', body, secrets: [secret] })).toMatchObject({ ok: false, status: 410, error: { code: 'gone' } });
    s.close();
  });

  it('follows no redirect: a 3xx is a failure and its target is never asked', async () => {
    const s = sender();
    receiver.handle = (_request, response) => void response.writeHead(307, { location: receiver.url('/elsewhere') }).end();
    const result = await s.send({ url: receiver.url('/first'), id: 'msg_307', body, secrets: [secret] });
    s.close();
    expect(result).toMatchObject({ ok: false, status: 307, error: { code: 'redirect', message: expect.stringContaining('/elsewhere') } });
    expect(receiver.received.map((r) => r.path)).toEqual(['/first']);
  });

  it('keeps at most 4 KiB of the answer and stops reading there, without waiting for the rest', async () => {
    let closedByClient = false;
    receiver.handle = async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('é'.repeat(3000)); // 6000 bytes, and the answer never ends
      response.once('close', () => (closedByClient = true));
    };
    const s = sender({ timeoutMs: 25_000 });
    const result = await s.send({ url: receiver.url(), id: 'msg_big', body, secrets: [secret] });
    s.close();
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(Buffer.byteLength(result.responseBody)).toBe(4096);
    expect(result.responseBody).toBe('é'.repeat(2048));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closedByClient).toBe(true);
  });

  it('gives up when no answer comes within the attempt limit (a timeout, not a thrown error)', async () => {
    receiver.handle = () => undefined; // never answers
    const s = sender({ timeoutMs: 300 });
    const result = await s.send({ url: receiver.url(), id: 'msg_slow', body, secrets: [secret] });
    s.close();
    expect(result).toMatchObject({ ok: false, status: null, error: { code: 'timeout', message: 'no answer within 300 ms' } });
    expect(result.latencyMs).toBeGreaterThanOrEqual(290);
  });

  it('limits the whole attempt, not each pause: a server trickling its headers forever times out', async () => {
    const trickle = createTlsServer({ cert: certificate.cert, key: certificate.key }, (socket) => {
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\n');
        const timer = setInterval(() => socket.write('X-Drip: 1\r\n'), 30);
        socket.once('close', () => clearInterval(timer));
      });
      socket.on('error', () => undefined);
    });
    trickle.listen(0, '127.0.0.1');
    await once(trickle, 'listening');
    const s = sender({ timeoutMs: 400 });
    const result = await s.send({ url: `https://127.0.0.1:${(trickle.address() as AddressInfo).port}/`, id: 'msg_drip', body, secrets: [secret] });
    s.close();
    trickle.close();
    expect(result).toMatchObject({ ok: false, status: null, error: { code: 'timeout' } });
  });

  it('trusts only the injected certificates: a self-signed server is a TLS failure by default', async () => {
    const strict = createWebhookSender({ allowance: loopback, resolve: dnsServerResolver([dns.address], 1000) });
    const result = await strict.send({ url: receiver.url('/x', 'hooks.vendor.test'), id: 'msg_tls', body, secrets: [secret] });
    strict.close();
    expect(result).toMatchObject({ ok: false, status: null, error: { code: 'tls' } });
    expect(receiver.received).toHaveLength(0);
  });

  it('checks the certificate against the URL host, not the address connected to', async () => {
    const s = sender();
    const result = await s.send({ url: receiver.url('/x', 'wrong-name.vendor.test'), id: 'msg_name', body, secrets: [secret] });
    s.close();
    expect(result).toMatchObject({ ok: false, error: { code: 'tls', message: expect.stringContaining('ERR_TLS_CERT_ALTNAME_INVALID') } });
  });

  it('reports a refused connection and a name that does not resolve as values', async () => {
    const closed = createTlsServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const s = sender();
    expect(await s.send({ url: `https://127.0.0.1:${port}/`, id: 'msg_c', body, secrets: [secret] })).toMatchObject({
      ok: false, status: null, error: { code: 'network', message: expect.stringContaining('ECONNREFUSED') },
    });
    expect(await s.send({ url: 'https://missing.vendor.test/', id: 'msg_d', body, secrets: [secret] })).toMatchObject({
      ok: false, status: null, error: { code: 'dns', message: 'cannot resolve missing.vendor.test: ENOTFOUND' },
    });
    s.close();
  });

  it('sends the same webhook-id on every attempt, with the attempt\'s own timestamp', async () => {
    let clock = Date.now();
    const s = sender({ now: () => clock });
    await s.send({ url: receiver.url(), id: 'msg_same', body, secrets: [secret] });
    clock += 2000;
    await s.send({ url: receiver.url(), id: 'msg_same', body, secrets: [secret] });
    s.close();
    const [first, second] = receiver.received;
    expect([first?.headers['webhook-id'], second?.headers['webhook-id']]).toEqual(['msg_same', 'msg_same']);
    expect(Number(second?.headers['webhook-timestamp']) - Number(first?.headers['webhook-timestamp'])).toBe(2);
    expect(second?.verifiedWith).toEqual([secret]);
  });
});
