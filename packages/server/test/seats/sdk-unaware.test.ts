import { createLicenseClient, createMemoryStorage } from '@svc-licensing/verifier';
import { expect, it } from 'vitest';
import { licensed } from '../support/fixtures.js';
import { createHarness, describeEveryStore } from '../support/harness.js';

describeEveryStore('an SDK that knows nothing of floating seats, on a floating plan', (setup) => {
  it('validates once refreshAfter has passed (a third of the lease) and its certificate ends one lease after its last call', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h, {}, { code: 'team', seatMode: 'floating', maxActivations: 1, leaseSeconds: 600 });
    const keys = (await h.api('GET', `/products/${product.id}/keys`)).body.data;
    const calls: string[] = [];
    // Answers without `lease`, as an SDK built before floating seats reads them: certificates only.
    const fetchUnaware = async (url: string, init?: RequestInit) => {
      calls.push(url.replace(/^.*\/licenses\//, ''));
      const res = await h.fetch(url.replace(/^http:\/\/licensing\.test/, ''), init);
      const body = await res.json() as Record<string, unknown>;
      delete body.lease;
      return new Response(JSON.stringify(body), { status: res.status, headers: res.headers });
    };
    const client = createLicenseClient({
      baseUrl: 'http://licensing.test/v1', fetch: fetchUnaware, product: product.id, publicKeys: keys, appVersion: '1.0.0',
      storage: createMemoryStorage(), machineId: 'old-sdk', now: () => h.clock.now(),
    });
    expect((await client.activate(license.key)).valid).toBe(true);
    h.clock.advance(199_000);
    expect(await client.check()).toMatchObject({ valid: true, offline: true });
    h.clock.advance(2_000); // past refreshAfter: the check validates (the heartbeat) and renews the lease
    expect(await client.check()).toMatchObject({ valid: true, offline: false });
    expect(calls).toEqual(['activate', 'validate']);
    const renewedAt = h.clock.now();
    const view = (await h.api('GET', `/licenses/${license.id}`)).body;
    expect(Date.parse(view.activations[0].leaseExpiresAt)).toBe(Math.floor(renewedAt / 1000) * 1000 + 600_000);
    // Its stored lease ends one lease after that call, and without another call the seat is free 5 s later.
    h.clock.set(new Date(Math.floor(renewedAt / 1000) * 1000 + 605_000).toISOString());
    const other = await h.client('activate', { product: product.id, key: license.key, fingerprint: 'a'.repeat(64) });
    expect(other.status).toBe(200);
    // Its certificate has expired by then, and its seat is taken: it is not valid until a seat is free.
    const stale = await client.check();
    expect(stale.valid).toBe(false);
    expect(calls.at(-1)).toBe('validate');
  });
});
