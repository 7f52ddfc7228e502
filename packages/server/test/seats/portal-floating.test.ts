import { expect, it } from 'vitest';
import { fingerprint, licensed } from '../support/fixtures.js';
import { describeEveryStore } from '../support/harness.js';
import { createPortalHarness, portalCall, signInCustomer } from '../support/portal.js';

const BUYER = 'buyer@example.com';

describeEveryStore('floating seats in the customer portal', (setup) => {
  it('shows live/limit and each machine\'s lease; freeing a borrowed machine returns the borrow and frees the seat', async () => {
    const h = await createPortalHarness(setup);
    const { product, license } = await licensed(h, {}, { code: 'team', seatMode: 'floating', maxActivations: 2, maxBorrowDays: 7, leaseSeconds: 300 });
    const body = (n: number) => ({ product: product.id, key: license.key, fingerprint: fingerprint(product.id, n) });
    const start = h.clock.now();
    const borrowed = await h.client('borrow', { ...body(1), days: 7, name: 'Travel laptop' });
    expect(borrowed.status).toBe(200);
    expect((await h.client('activate', { ...body(2), name: 'Desk' })).status).toBe(200);
    const customer = await signInCustomer(h, h.accountId, BUYER);
    const list = await portalCall(h, customer, 'GET', '/licenses');
    expect(list.body.data[0]).toMatchObject({ seatMode: 'floating', liveLeases: 2, borrowedLeases: 1, activationLimit: 2 });
    const detail = (await portalCall(h, customer, 'GET', `/licenses/${license.id}`)).body;
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    expect(detail.activations.map((a: any) => [a.name, a.leaseState, a.leaseExpiresAt, a.borrowedUntil])).toEqual([
      ['Travel laptop', 'borrowed', iso(start + 7 * 86_400_000), iso(start + 7 * 86_400_000)],
      ['Desk', 'live', iso(start + 300_000), null],
    ]);
    expect(JSON.stringify(detail)).not.toContain(fingerprint(product.id, 1));

    expect((await h.client('activate', body(3))).status).toBe(409);
    const freed = await portalCall(h, customer, 'DELETE', `/activations/${borrowed.body.activation}`);
    expect(freed.status).toBe(200);
    expect((await h.client('activate', body(3))).status).toBe(200);
    const events = (await h.api('GET', `/events?license=${license.id}`)).body.data;
    expect(events.find((e: any) => e.type === 'lease.returned').data).toMatchObject({ source: 'portal', borrowedUntil: iso(start + 7 * 86_400_000) });
  });
});
