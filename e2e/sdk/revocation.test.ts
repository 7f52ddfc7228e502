import { describe, expect, it } from 'vitest';
import { advanceAll, app, DAY_MS, startServer } from '../support/sdk-server.js';

describe('SDK against the reference server: refusals seen at refresh', () => {
  it('a revoked license keeps working offline until refreshAfter, then the certificate is cleared with license_revoked', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const laptop = app(server, licensed, 'machine-laptop');
    await laptop.client.activate(licensed.key);
    await server.api('POST', `/licenses/${licensed.licenseId}/revoke`);

    advanceAll(server, [laptop], DAY_MS / 2);
    expect(await laptop.client.check()).toMatchObject({ valid: true, offline: true });

    advanceAll(server, [laptop], DAY_MS / 2);
    expect(await laptop.client.check()).toEqual({
      valid: false,
      outcome: null,
      payload: null,
      offline: false,
      reason: 'license_revoked',
      refreshError: null,
      lease: null,
    });
    expect(laptop.stored()).toMatchObject({ key: licensed.key, certificate: null, refusal: 'license_revoked' });

    // Later checks (also after a restart of the app) report the refusal without calling the server.
    const calls = server.clientCalls('validate');
    expect(await laptop.client.check()).toMatchObject({ valid: false, reason: 'license_revoked' });
    expect(server.clientCalls('validate')).toBe(calls);
    await expect(laptop.client.validate()).rejects.toMatchObject({ code: 'license_revoked', status: 403 });
  });

  it('a suspended license is cleared at refresh, and validate() brings it back once reinstated', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const laptop = app(server, licensed, 'machine-laptop');
    await laptop.client.activate(licensed.key);
    await server.api('POST', `/licenses/${licensed.licenseId}/suspend`);

    advanceAll(server, [laptop], DAY_MS);
    expect(await laptop.client.check()).toMatchObject({ valid: false, reason: 'license_suspended' });

    await server.api('POST', `/licenses/${licensed.licenseId}/reinstate`);
    expect(await laptop.client.validate()).toMatchObject({ valid: true, offline: false });
    expect(laptop.stored()).toMatchObject({ refusal: null, certificate: expect.stringMatching(/^CRT1\./) });
  });

  it('an activation the vendor deleted is cleared at refresh with not_activated', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const laptop = app(server, licensed, 'machine-laptop');
    const { activation } = await laptop.client.activate(licensed.key);
    await server.api('DELETE', `/activations/${activation}`);

    advanceAll(server, [laptop], DAY_MS);
    expect(await laptop.client.check()).toMatchObject({ valid: false, reason: 'not_activated', offline: false });
    expect(laptop.stored().certificate).toBeNull();

    // Activating again is how the app recovers (the key is still stored, but activate takes it anew).
    expect(await laptop.client.activate(licensed.key)).toMatchObject({ valid: true });
  });
});
