import { parseActivationRequest } from '@svc-licensing/cert-format';
import { describe, expect, it } from 'vitest';
import type { FetchLike } from '@svc-licensing/verifier';
import { advanceAll, app, DAY_MS, startServer } from '../support/sdk-server.js';

/** A fetch the test can cut off: while offline every call fails as a network error and is counted. */
function switchableFetch() {
  const state = { online: false, attempts: 0 };
  const fetchFn: FetchLike = (input, init) => {
    state.attempts++;
    if (!state.online) return Promise.reject(new TypeError('fetch failed: no network'));
    return globalThis.fetch(input, init);
  };
  return { state, fetchFn };
}

describe('SDK: air-gapped activation against the reference server', () => {
  it('request → vendor API → certificate → importCertificate → check() valid offline, then refreshed online once connected', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const net = switchableFetch();
    const lab = app(server, licensed, 'machine-lab', { fetch: net.fetchFn });

    const request = lab.client.createActivationRequest({ name: 'Lab PC', platform: 'linux', key: licensed.key.toLowerCase() });
    expect(request).toMatch(/^SVCREQ1\.[A-Za-z0-9_-]+$/);
    expect(request.length).toBeLessThan(400);
    expect(parseActivationRequest(request)).toEqual({
      ok: true,
      request: {
        v: 1, product: licensed.product, fingerprint: lab.client.fingerprint, appVersion: '1.4.0',
        createdAt: Math.floor(lab.clock.now() / 1000), name: 'Lab PC', platform: 'linux', key: licensed.key,
      },
    });
    expect(lab.storage.text).toBeNull(); // making a request writes nothing

    const answer = await server.api('POST', '/activations/offline', { request });
    const imported = await lab.client.importCertificate(`${answer.certificate}\n`, { key: licensed.key });
    expect(imported).toMatchObject({ valid: true, outcome: 'valid', reason: null, payload: { license: licensed.licenseId, fingerprint: lab.client.fingerprint } });
    expect(lab.stored()).toMatchObject({ key: licensed.key, certificate: answer.certificate, highestIssuedAt: imported.payload!.issuedAt, refusal: null });

    // The server is stopped: check() answers from the certificate, also after refreshAfter.
    await server.stop();
    expect(await lab.client.check()).toMatchObject({ valid: true, offline: true, refreshError: null });
    advanceAll(server, [lab], DAY_MS + 1000);
    expect(await lab.client.check()).toMatchObject({ valid: true, offline: true, refreshError: 'network_error' });
    expect(net.state.attempts).toBe(1);

    // The machine gets a connection: the next check refreshes online.
    await server.start();
    net.state.online = true;
    const online = await lab.client.check();

    expect(online).toMatchObject({ valid: true, offline: false, refreshError: null });
    expect(online.payload!.issuedAt).toBeGreaterThan(imported.payload!.issuedAt);
    expect(server.clientCalls('validate')).toBe(1);
  });

  it('a request without the key: the vendor picks the license; the machine runs offline until expiresAt and never calls out', async () => {
    const server = await startServer();
    const licensed = await server.license({ product: { offlineDays: 5 } });
    const net = switchableFetch();
    const lab = app(server, licensed, 'machine-lab', { fetch: net.fetchFn });
    const request = lab.client.createActivationRequest();
    expect(parseActivationRequest(request)).toMatchObject({ ok: true, request: { product: licensed.product } });
    expect((parseActivationRequest(request) as any).request.key).toBeUndefined();

    const answer = await server.api('POST', '/activations/offline', { request, license: licensed.licenseId });
    expect(await lab.client.importCertificate(answer.certificate)).toMatchObject({ valid: true });
    expect(lab.stored().key).toBeNull();
    advanceAll(server, [lab], 4 * DAY_MS);
    expect(await lab.client.check()).toMatchObject({ valid: true, offline: true });
    advanceAll(server, [lab], DAY_MS);
    expect(await lab.client.check()).toMatchObject({ valid: false, reason: 'expired' });
    expect(net.state.attempts).toBe(0);
  });

  it('importCertificate verifies with all nine rules: another machine, a damaged text, an older certificate are refused and nothing is stored', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const lab = app(server, licensed, 'machine-lab');
    const other = app(server, licensed, 'machine-other');
    const forOther = await server.api('POST', '/activations/offline', { request: other.client.createActivationRequest({ key: licensed.key }) });

    await expect(lab.client.importCertificate(forOther.certificate)).rejects.toMatchObject({ code: 'invalid_certificate', outcome: 'wrong_machine' });
    await expect(lab.client.importCertificate(forOther.certificate.slice(0, -4))).rejects.toMatchObject({ code: 'invalid_certificate', outcome: 'invalid_signature' });
    await expect(lab.client.importCertificate('SVCREQ1.abc')).rejects.toMatchObject({ code: 'invalid_certificate', outcome: 'malformed' });
    expect(lab.storage.text).toBeNull();

    // A certificate the machine already holds newer than: refused as stale (a replayed old file).
    const oldFile = (await server.api('POST', '/activations/offline', { request: lab.client.createActivationRequest({ key: licensed.key }) })).certificate;
    advanceAll(server, [lab], 2 * DAY_MS);
    const newFile = (await server.api('POST', '/activations/offline', { request: lab.client.createActivationRequest({ key: licensed.key }) })).certificate;
    await lab.client.importCertificate(newFile);
    await expect(lab.client.importCertificate(oldFile)).rejects.toMatchObject({ code: 'stale_certificate' });
    expect(lab.stored().certificate).toBe(newFile);
  });
});

describe('SDK: behaviour after a refusal and against replayed answers', () => {
  it('after a refresh cleared the certificate, check() asks again at most once an hour, so a reinstated license comes back by itself', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const laptop = app(server, licensed, 'machine-laptop');
    await laptop.client.activate(licensed.key);
    await server.api('POST', `/licenses/${licensed.licenseId}/suspend`);
    advanceAll(server, [laptop], DAY_MS);
    expect(await laptop.client.check()).toMatchObject({ valid: false, reason: 'license_suspended' });
    const afterClear = server.clientCalls('validate');

    await server.api('POST', `/licenses/${licensed.licenseId}/reinstate`);
    // Within the hour: no call, the refusal stands (many checks, still bounded).
    for (let i = 0; i < 5; i++) {
      advanceAll(server, [laptop], 10 * 60_000);
      expect(await laptop.client.check()).toMatchObject({ valid: false, reason: 'license_suspended' });
    }
    expect(server.clientCalls('validate')).toBe(afterClear);

    advanceAll(server, [laptop], 10 * 60_000);
    expect(await laptop.client.check()).toMatchObject({ valid: true, offline: false, reason: null });
    expect(server.clientCalls('validate')).toBe(afterClear + 1);
    expect(laptop.stored()).toMatchObject({ key: licensed.key, refusal: null, refusalCheckedAt: null });
  });

  it('a retry that is refused again or cannot reach the server waits another hour', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const laptop = app(server, licensed, 'machine-laptop', { refusalRetryMs: 30 * 60_000 });
    const { activation } = await laptop.client.activate(licensed.key);
    await server.api('DELETE', `/activations/${activation}`);
    advanceAll(server, [laptop], DAY_MS);
    expect(await laptop.client.check()).toMatchObject({ valid: false, reason: 'not_activated' });
    const calls = server.clientCalls('validate');

    advanceAll(server, [laptop], 30 * 60_000);
    expect(await laptop.client.check()).toMatchObject({ valid: false, reason: 'not_activated' });
    expect(server.clientCalls('validate')).toBe(calls + 1);
    expect(await laptop.client.check()).toMatchObject({ reason: 'not_activated' });
    expect(server.clientCalls('validate')).toBe(calls + 1);

    await server.stop();
    advanceAll(server, [laptop], 30 * 60_000);
    expect(await laptop.client.check()).toMatchObject({ valid: false, reason: 'not_activated', refreshError: 'network_error' });
    await server.start();
    expect(await laptop.client.check()).toMatchObject({ reason: 'not_activated', refreshError: null });
    expect(server.clientCalls('validate')).toBe(calls + 1);
  });

  it('a refreshed certificate older than the newest one seen (a replayed answer) is refused and the reason reported', async () => {
    const server = await startServer();
    const licensed = await server.license();
    // A fetch that can replay a recorded validate answer instead of asking the server.
    let recorded: string | null = null;
    let replay = false;
    const fetchFn: FetchLike = async (input, init) => {
      if (replay && recorded !== null && input.endsWith('/validate')) return new Response(recorded, { status: 200, headers: { 'content-type': 'application/json' } });
      const res = await globalThis.fetch(input, init);
      const text = await res.text();
      if (input.endsWith('/validate') && res.ok && recorded === null) recorded = text;
      return new Response(text, { status: res.status, headers: res.headers });
    };
    const laptop = app(server, licensed, 'machine-laptop', { fetch: fetchFn });
    await laptop.client.activate(licensed.key);
    advanceAll(server, [laptop], DAY_MS);
    const first = await laptop.client.check(); // recorded
    expect(first).toMatchObject({ valid: true, offline: false });
    advanceAll(server, [laptop], DAY_MS);
    const second = await laptop.client.check();
    expect(second.payload!.issuedAt).toBeGreaterThan(first.payload!.issuedAt);

    replay = true;
    advanceAll(server, [laptop], DAY_MS);
    const replayed = await laptop.client.check();
    expect(replayed).toMatchObject({ valid: true, offline: true, refreshError: 'stale_certificate' });
    expect(replayed.payload!.issuedAt).toBe(second.payload!.issuedAt);
    expect(laptop.stored().highestIssuedAt).toBe(second.payload!.issuedAt);
    await expect(laptop.client.validate()).rejects.toMatchObject({ code: 'stale_certificate' });
  });
});
