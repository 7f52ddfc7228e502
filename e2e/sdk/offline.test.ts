import { describe, expect, it } from 'vitest';
import { advanceAll, app, DAY_MS, startServer } from '../support/sdk-server.js';

describe('SDK against the reference server: offline while the server is stopped', () => {
  it('keeps the cached certificate while the server is down, expires it at expiresAt, and recovers when the server is back', async () => {
    const server = await startServer();
    const licensed = await server.license({ plan: { offlineDays: 3 } });
    const laptop = app(server, licensed, 'machine-laptop');
    const activation = await laptop.client.activate(licensed.key);
    const { expiresAt } = activation.payload!;
    expect(expiresAt).toBe(activation.payload!.issuedAt + 3 * 86_400);
    const cached = laptop.stored();

    await server.stop();
    advanceAll(server, [laptop], DAY_MS);
    expect(await laptop.client.check()).toMatchObject({ valid: true, offline: true, refreshError: 'network_error' });
    expect(laptop.stored()).toEqual(cached);

    // Every later check tries again (refreshAfter has passed) and still answers from the cache.
    advanceAll(server, [laptop], DAY_MS);
    expect(await laptop.client.check()).toMatchObject({ valid: true, offline: true, refreshError: 'network_error' });

    laptop.clock.advance(expiresAt * 1000 - laptop.clock.now());
    server.clock.advance(expiresAt * 1000 - server.clock.now());
    const expired = await laptop.client.check();
    expect(expired).toMatchObject({ valid: false, outcome: 'expired', reason: 'expired', offline: true, refreshError: 'network_error' });
    expect(expired.payload).toEqual(activation.payload);
    await expect(laptop.client.validate()).rejects.toMatchObject({ code: 'network_error', status: null });

    await server.start();
    const back = await laptop.client.check();
    expect(back).toMatchObject({ valid: true, offline: false, refreshError: null });
    expect(back.payload!.issuedAt).toBe(expiresAt);
  });

  it('deactivate keeps the certificate on a network error, and succeeds when retried with the server back', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const laptop = app(server, licensed, 'machine-laptop');
    await laptop.client.activate(licensed.key);
    const cached = laptop.stored();

    await server.stop();
    await expect(laptop.client.deactivate()).rejects.toMatchObject({ code: 'network_error' });
    expect(laptop.stored()).toEqual(cached);
    expect(await laptop.client.check()).toMatchObject({ valid: true, offline: true });

    await server.start();
    expect(await laptop.client.deactivate()).toEqual({ released: true });
    expect(laptop.stored()).toMatchObject({ key: null, certificate: null });
    const detail = await server.api('GET', `/licenses/${licensed.licenseId}`);
    expect(detail.activations).toEqual([]);
  });
});
