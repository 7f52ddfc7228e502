import { describe, expect, it } from 'vitest';
import { machineFingerprint } from '@svc-licensing/cert-format';
import { createLicenseClient, createMemoryStorage, decodeLicenseState, LicenseClientError, verifyCertificate } from '@svc-licensing/verifier';
import { startServer } from '../support/sdk-server.js';

// The key list the service publishes (GET /products/{id}/keys) goes into the verifier and the SDK
// as it is: no reshaping into a kid → key map by the application.
describe('the signing-key list of the API as publicKeys', () => {
  it('verifies a certificate and runs the SDK with the GET /products/{id}/keys response or its data array', async () => {
    const server = await startServer();
    const licensed = await server.license();
    await server.api('POST', `/products/${licensed.product}/keys`); // k2 pending: listed with a status, still a key to embed
    const response = await server.api('GET', `/products/${licensed.product}/keys`);
    expect(response.data.map((k: { kid: string; status: string }) => [k.kid, k.status])).toEqual([['k1', 'active'], ['k2', 'pending']]);

    for (const publicKeys of [response, response.data]) {
      const storage = createMemoryStorage();
      const client = createLicenseClient({
        baseUrl: server.baseUrl, product: licensed.product, publicKeys, appVersion: '1.4.0', storage, machineId: 'list-machine',
        now: server.clock.now,
      });
      const activated = await client.activate(licensed.key);
      expect(activated.valid, JSON.stringify(activated)).toBe(true);
      const { certificate } = decodeLicenseState(storage.text, licensed.product);
      expect(certificate).toMatch(/^CRT1\./);
      const result = await verifyCertificate(certificate, {
        publicKeys,
        product: licensed.product,
        fingerprint: machineFingerprint(licensed.product, 'list-machine'),
        appMajor: 1,
        now: Math.floor(server.clock.now() / 1000),
      });
      expect(result.outcome).toBe('valid');
      // Freed, then activated again by the next pass in the same second (the clock stands still).
      await client.deactivate();
    }
  });

  it('refuses a list with a bad entry as a programmer error, naming the option', async () => {
    const base = { product: 'prd_1', fingerprint: 'a'.repeat(64), appMajor: 1 };
    await expect(verifyCertificate('CRT1.x.y', { ...base, publicKeys: { data: [{ kid: 'k1', publicKey: 'short' }] } })).rejects.toThrow(/publicKeys\.k1/);
    await expect(verifyCertificate('CRT1.x.y', { ...base, publicKeys: [{ kid: 'k1' }] as never })).rejects.toThrow(TypeError);
    expect(() =>
      createLicenseClient({ baseUrl: 'http://x.test/v1', product: 'prd_1', publicKeys: { data: [] }, appVersion: '1.0.0', storage: createMemoryStorage(), machineId: 'm' }),
    ).toThrow(LicenseClientError);
  });
});
