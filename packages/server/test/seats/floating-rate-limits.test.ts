import { expect, it } from 'vitest';
import { fingerprint, licensed } from '../support/fixtures.js';
import { createHarness, describeEveryStore } from '../support/harness.js';

describeEveryStore('floating seats: rate limits', (setup) => {
  it('50 machines behind one address heartbeating at the shortest lease for an hour of fake time get no 429', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h, {}, { code: 'lab', seatMode: 'floating', maxActivations: 50, leaseSeconds: 120 });
    const body = (n: number) => ({ product: product.id, key: license.key, fingerprint: fingerprint(product.id, n) });
    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    for (let n = 0; n < 50; n++) count((await h.client('activate', body(n))).status);
    // One heartbeat per machine every 40 s (refreshAfter = leaseSeconds / 3): 90 an hour each, 4,500 from the address.
    for (let beat = 0; beat < 90; beat++) {
      h.clock.advance(40_000);
      const answers = await Promise.all(Array.from({ length: 50 }, (_, n) => h.client('validate', body(n))));
      for (const a of answers) count(a.status);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: 50 + 90 * 50 });
    expect((await h.api('GET', `/licenses/${license.id}`)).body.liveLeases).toBe(50);
  }, 240_000);

  it('counts a floating machine against its own budget (3x its heartbeat rate), and unknown and machine-plan keys as the contract says', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h, {}, { code: 'day', seatMode: 'floating', maxActivations: 5, leaseSeconds: 86_400 });
    const body = (n: number) => ({ product: product.id, key: license.key, fingerprint: fingerprint(product.id, n) });
    // The first call of the key counts against key + address; from its floating answer on, each machine has 30 (max(30, 3 x 3600 / 28800)).
    expect((await h.client('activate', body(1))).status).toBe(200);
    for (let i = 0; i < 30; i++) expect((await h.client('validate', body(1))).status, `call ${i}`).toBe(200);
    const refused = await h.client('validate', body(1));
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(refused.headers.get('x-ratelimit-limit')).toBe('30');
    // Another machine of the same key behind the same address has its own budget.
    expect((await h.client('activate', body(2))).status).toBe(200);

    // A machine-plan key keeps 30 per key and address, whatever the fingerprint.
    const machine = await licensed(h, {}, { code: 'pro', maxActivations: 100 });
    const mbody = (n: number) => ({ product: machine.product.id, key: machine.license.key, fingerprint: fingerprint(machine.product.id, n) });
    for (let i = 0; i < 30; i++) expect((await h.client('activate', mbody(i))).status).toBe(200);
    expect((await h.client('activate', mbody(31))).status).toBe(429);
  });
});
