import { expect, it } from 'vitest';
import { fingerprint, licensed } from '../support/fixtures.js';
import { describeEverySetup } from '../support/harness.js';
import { createPortalHarness, portalCall, signInCustomer } from '../support/portal.js';

/**
 * Issue 25, item 6: the portal showed each machine's fingerprint, and `POST /v1/licenses/deactivate`
 * with the license key and that fingerprint freed the machine without counting against the portal's
 * release bound (3 per 30 days by default). The portal no longer reveals fingerprints; a machine
 * freeing itself (it knows its own fingerprint) stays free.
 */

const BUYER = 'buyer@example.com';

describeEverySetup('the portal does not reveal fingerprints', (setup) => {
  it('no portal answer carries a machine fingerprint, so the release bound cannot be bypassed with one', async () => {
    const h = await createPortalHarness(setup);
    const { product, license } = await licensed(h, { email: BUYER, seats: 3 }, { maxActivations: 3 });
    const fps = [1, 2, 3].map((n) => fingerprint(product.id, n));
    for (const [i, fp] of fps.entries()) {
      expect((await h.client('activate', { product: product.id, key: license.key, fingerprint: fp, name: `Machine ${i + 1}` })).status).toBe(200);
    }
    const customer = await signInCustomer(h, h.accountId, BUYER);
    const detail = await portalCall(h, customer, 'GET', `/licenses/${license.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.activations).toHaveLength(3);
    // Each machine as the vendor API shows it (lease fields included since issue 27), less its fingerprint.
    const vendorFields = Object.keys((await h.api('GET', `/licenses/${license.id}`)).body.activations[0]).filter((k) => k !== 'fingerprint').sort();
    expect(vendorFields).toEqual(expect.arrayContaining(['appVersion', 'createdAt', 'id', 'lastSeenAt', 'name', 'platform']));
    for (const machine of detail.body.activations) expect(Object.keys(machine).sort()).toEqual(vendorFields);
    const list = await portalCall(h, customer, 'GET', '/licenses');
    for (const text of [JSON.stringify(detail.body), JSON.stringify(list.body)]) {
      for (const fp of fps) expect(text).not.toContain(fp);
    }
    // The vendor still sees them, and the machine itself can still free its seat without counting.
    const vendorView = await h.api('GET', `/licenses/${license.id}`);
    expect(vendorView.body.activations.map((a: { fingerprint: string }) => a.fingerprint).sort()).toEqual([...fps].sort());
    expect((await h.client('deactivate', { product: product.id, key: license.key, fingerprint: fps[0] })).status).toBe(200);
    const after = await portalCall(h, customer, 'GET', `/licenses/${license.id}`);
    expect(after.body).toMatchObject({ activationCount: 2, releasesLeft: 3, releaseLimit: 3 });
  });
});
