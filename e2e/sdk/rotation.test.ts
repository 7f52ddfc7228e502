import { describe, expect, it } from 'vitest';
import { LicenseClientError } from '@svc-licensing/verifier';
import { advanceAll, app, DAY_MS, startServer, type SdkServer } from '../support/sdk-server.js';

async function rotate(server: SdkServer, product: string): Promise<Record<string, string>> {
  await server.api('POST', `/products/${product}/keys`);
  await server.api('POST', `/products/${product}/keys/k2/activate`);
  const keys = await server.api('GET', `/products/${product}/keys`);
  return Object.fromEntries(keys.data.map((k: { kid: string; publicKey: string }) => [k.kid, k.publicKey]));
}

describe('SDK against the reference server: key rotation with an app that embeds only the old key', () => {
  it('a new activation reports invalid_certificate; the server has recorded it and deactivate frees it', async () => {
    const server = await startServer();
    const licensed = await server.license();
    expect(Object.keys(licensed.publicKeys)).toEqual(['k1']);
    await rotate(server, licensed.product);

    const laptop = app(server, licensed, 'machine-laptop');
    const error = await laptop.client.activate(licensed.key, { name: 'New laptop' }).catch((e: unknown) => e);
    expect(LicenseClientError.is(error)).toBe(true);
    expect(error).toMatchObject({ code: 'invalid_certificate', outcome: 'invalid_signature', status: 200 });
    expect(laptop.stored()).toMatchObject({ key: licensed.key, certificate: null });
    expect(await laptop.client.check()).toMatchObject({ valid: false, reason: 'no_certificate' });

    const detail = await server.api('GET', `/licenses/${licensed.licenseId}`);
    expect(detail.activations).toEqual([expect.objectContaining({ name: 'New laptop' })]);
    expect(await laptop.client.deactivate()).toEqual({ released: true });
    expect((await server.api('GET', `/licenses/${licensed.licenseId}`)).activations).toEqual([]);
  });

  it('an activated machine ignores the unverifiable refreshed certificate and keeps the cached one, offline, until it expires', async () => {
    const server = await startServer();
    const licensed = await server.license({ plan: { offlineDays: 5 } });
    const laptop = app(server, licensed, 'machine-laptop');
    const activation = await laptop.client.activate(licensed.key);
    const cached = laptop.stored();
    const newKeys = await rotate(server, licensed.product);

    advanceAll(server, [laptop], DAY_MS);
    const refreshed = await laptop.client.check();
    expect(refreshed).toMatchObject({ valid: true, offline: true, refreshError: 'invalid_certificate' });
    expect(refreshed.payload).toEqual(activation.payload);
    expect(laptop.stored()).toEqual(cached);
    await expect(laptop.client.validate()).rejects.toMatchObject({ code: 'invalid_certificate', outcome: 'invalid_signature' });

    advanceAll(server, [laptop], activation.payload!.expiresAt * 1000 - laptop.clock.now());
    expect(await laptop.client.check()).toMatchObject({ valid: false, outcome: 'expired', reason: 'expired', offline: true, refreshError: 'invalid_certificate' });

    // The app update that embeds the new key refreshes normally.
    const updated = app(server, { ...licensed, publicKeys: newKeys }, 'machine-laptop');
    updated.storage.write(laptop.storage.text!);
    const back = await updated.client.check();
    expect(back).toMatchObject({ valid: true, offline: false });
    expect(back.payload!.kid).toBe('k2');
  });
});
