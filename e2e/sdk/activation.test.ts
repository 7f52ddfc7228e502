import { machineFingerprint } from '@svc-licensing/cert-format';
import { describe, expect, it } from 'vitest';
import { LicenseClientError } from '@svc-licensing/verifier';
import { advanceAll, app, DAY_MS, startServer } from '../support/sdk-server.js';

describe('SDK against the reference server: activation and refresh', () => {
  it('activates, stores the key, the certificate and the highest issuedAt, and answers valid', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const laptop = app(server, licensed, 'machine-laptop');

    const typed = `  ${licensed.key.toLowerCase()} `;
    const activation = await laptop.client.activate(typed, { name: 'Laptop', platform: 'linux' });
    expect(activation).toMatchObject({ valid: true, outcome: 'valid', offline: false, reason: null, refreshError: null });
    expect(activation.activation).toMatch(/^act_/);
    const issuedAt = Math.floor(server.clock.now() / 1000);
    expect(activation.payload).toMatchObject({
      product: licensed.product,
      license: licensed.licenseId,
      plan: 'pro',
      entitlements: ['export', 'sync'],
      licensee: 'Ada Buyer',
      fingerprint: machineFingerprint(licensed.product, 'machine-laptop'),
      issuedAt,
      refreshAfter: issuedAt + 86_400,
    });
    expect(laptop.stored()).toMatchObject({ key: licensed.key, highestIssuedAt: issuedAt, refusal: null, certificate: expect.stringMatching(/^CRT1\./) });

    const detail = await server.api('GET', `/licenses/${licensed.licenseId}`);
    expect(detail.activations).toEqual([expect.objectContaining({ id: activation.activation, name: 'Laptop', platform: 'linux', appVersion: '1.4.0' })]);
  });

  it('answers from the cache before refreshAfter and validates online at the next check once it has passed', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const laptop = app(server, licensed, 'machine-laptop');
    const first = await laptop.client.activate(licensed.key);

    advanceAll(server, [laptop], DAY_MS - 1000);
    expect(await laptop.client.check()).toMatchObject({ valid: true, offline: true, refreshError: null });
    expect(server.clientCalls('validate')).toBe(0);

    advanceAll(server, [laptop], 1000);
    const refreshed = await laptop.client.check();
    expect(server.clientCalls('validate')).toBe(1);
    expect(refreshed).toMatchObject({ valid: true, offline: false, refreshError: null });
    expect(refreshed.payload!.issuedAt).toBe(first.payload!.issuedAt + 86_400);
    expect(laptop.stored().highestIssuedAt).toBe(refreshed.payload!.issuedAt);

    // The new certificate starts a new day: the next check is offline again.
    expect(await laptop.client.check()).toMatchObject({ valid: true, offline: true });
    expect(server.clientCalls('validate')).toBe(1);
  });

  it('runs calls on one client one at a time: concurrent checks after refreshAfter make a single refresh', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const laptop = app(server, licensed, 'machine-laptop');
    await laptop.client.activate(licensed.key);
    advanceAll(server, [laptop], DAY_MS);
    const results = await Promise.all([laptop.client.check(), laptop.client.check(), laptop.client.check()]);
    expect(results.map((r) => [r.valid, r.offline])).toEqual([
      [true, false],
      [true, true],
      [true, true],
    ]);
    expect(server.clientCalls('validate')).toBe(1);
  });

  it('validate() refreshes at once, whatever refreshAfter says', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const laptop = app(server, licensed, 'machine-laptop');
    await laptop.client.activate(licensed.key);
    advanceAll(server, [laptop], 60_000);
    const validated = await laptop.client.validate();
    expect(validated).toMatchObject({ valid: true, offline: false });
    expect(validated.payload!.issuedAt).toBe(Math.floor(server.clock.now() / 1000));
    expect(server.clientCalls('validate')).toBe(1);
  });

  it('keeps the server error code on refused activations and stores nothing', async () => {
    const server = await startServer();
    const licensed = await server.license({ plan: { maxActivations: 1 } });
    const first = app(server, licensed, 'machine-1');
    await first.client.activate(licensed.key);

    const second = app(server, licensed, 'machine-2');
    const full = await second.client.activate(licensed.key).catch((error: unknown) => error);
    expect(LicenseClientError.is(full)).toBe(true);
    expect(full).toMatchObject({ code: 'activation_limit', status: 409 });
    expect(second.storage.text).toBeNull();

    const unknown = `${licensed.key.slice(0, -5)}${licensed.key.endsWith('AAAAA') ? 'BBBBB' : 'AAAAA'}`;
    await expect(second.client.activate(unknown)).rejects.toMatchObject({ code: 'unknown_key', status: 404 });
    await expect(second.client.activate('not a key')).rejects.toMatchObject({ code: 'invalid_request', status: 400 });

    const otherProduct = app(server, { ...licensed, product: 'prd_doesnotexist' }, 'machine-2');
    await expect(otherProduct.client.activate(licensed.key)).rejects.toMatchObject({ code: 'unknown_product', status: 404 });
  });

  it('reports version_not_covered for an app whose major version the plan does not cover', async () => {
    const server = await startServer();
    const licensed = await server.license({ plan: { maxMajor: 1 } });
    const v2 = app(server, licensed, 'machine-1', { appVersion: '2.0.0' });
    expect(await v2.client.activate(licensed.key)).toMatchObject({ valid: false, outcome: 'version_not_covered', reason: 'version_not_covered' });
    const v1 = app(server, licensed, 'machine-2', { appVersion: '1.9.3' });
    expect(await v1.client.activate(licensed.key)).toMatchObject({ valid: true });
  });

  it('keeps the cached certificate when the server answers 429 at refresh, flagged offline', async () => {
    const server = await startServer({ limits: { clientPerKeyAndIp: 2 } });
    const licensed = await server.license();
    const laptop = app(server, licensed, 'machine-laptop');
    await laptop.client.activate(licensed.key);
    await laptop.client.validate();
    const before = laptop.stored();

    // Only the app's clock moves: the server's hourly window is still used up.
    laptop.clock.advance(DAY_MS);
    expect(await laptop.client.check()).toMatchObject({ valid: true, offline: true, refreshError: 'rate_limited' });
    expect(laptop.stored()).toEqual(before);
    await expect(laptop.client.validate()).rejects.toMatchObject({ code: 'rate_limited', status: 429 });
  });
});
