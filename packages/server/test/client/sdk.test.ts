import { createLicenseClient, createMemoryStorage } from '@svc-licensing/verifier';
import { expect, it } from 'vitest';
import { licensed } from '../support/fixtures.js';
import { createHarness, describeEverySetup } from '../support/harness.js';

describeEverySetup('the client SDK against the server', (setup) => {
  it('activates, checks, validates and deactivates through the SDK; a revoked license surfaces its spec code', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h);
    const keys = (await h.api('GET', `/products/${product.id}/keys`)).body.data;
    const client = createLicenseClient({
      baseUrl: 'http://licensing.test/v1',
      // The harness routes the path to the app (in-process) or to the listening server.
      fetch: (url, init) => h.fetch(url.replace(/^http:\/\/licensing\.test/, ''), init),
      product: product.id,
      publicKeys: keys, // the API's list, as is
      appVersion: '1.4.0',
      storage: createMemoryStorage(),
      machineId: 'sdk-machine',
      now: () => h.clock.now(),
    });
    const activated = await client.activate(license.key, { name: 'Laptop' });
    expect(activated.valid).toBe(true);
    expect(activated.activation).toMatch(/^act_/);
    expect((await client.check()).valid).toBe(true);
    expect((await client.validate()).valid).toBe(true);
    expect((await h.api('GET', `/licenses/${license.id}`)).body.activations[0]).toMatchObject({ name: 'Laptop', appVersion: '1.4.0' });

    expect(await client.deactivate()).toMatchObject({ released: true });
    expect((await h.api('GET', `/licenses/${license.id}`)).body.activationCount).toBe(0);

    await client.activate(license.key);
    await h.api('POST', `/licenses/${license.id}/revoke`);
    await expect(client.validate()).rejects.toMatchObject({ code: 'license_revoked' });
  });
});
