import { describe, expect, it } from 'vitest';
import { machineFingerprint } from '@svc-licensing/cert-format';
import { fingerprint, licensed } from '../support/fixtures.js';
import { createHarness, describeEverySetup } from '../support/harness.js';
import { STORE_KINDS, type StoreKind } from '../support/stores.js';
import { createWorld, eventA, PRICES, type World } from '../support/payment-world.js';

const world = (kind: StoreKind) => createWorld({ mode: 'in-process', store: kind });

const customers = async (w: World) => (await w.api('GET', '/customers')).body.data as Array<{ id: string; email: string; name: string; licenseCount: number }>;
const detail = async (w: World, id: string) => (await w.api('GET', `/licenses/${id}`)).body;

for (const kind of STORE_KINDS) {
  describe(`webhook rules the spec states (${kind})`, () => {
    it('customer.updated moves the customer linked to the provider customer ID, with its licenses, to the new e-mail', async () => {
      const w = await world(kind);
      await w.deliver('provider_a', 'customer.created'); // ada@example.com
      expect((await w.deliver('provider_a', 'transaction.completed.subscription')).body.result).toBe('processed');
      const [before] = await customers(w);
      expect(before).toMatchObject({ email: 'ada@example.com', licenseCount: 1 });

      expect((await w.deliver('provider_a', 'customer.updated')).body.result).toBe('processed'); // ada.lovelace@example.com
      expect(await customers(w)).toEqual([{ id: before!.id, email: 'ada.lovelace@example.com', name: 'Ada Lovelace', licenseCount: 1 }]);
      const [license] = await w.licenses();
      expect(license.customer).toEqual({ id: before!.id, email: 'ada.lovelace@example.com', name: 'Ada Lovelace' });
      expect((await w.api('GET', '/licenses?email=ada.lovelace@example.com')).body.data).toHaveLength(1);
      expect((await w.api('GET', '/licenses?email=ada@example.com')).body.data).toEqual([]);

      // The address already belongs to another customer: the licenses move to that customer, still one record per address.
      await w.api('POST', '/licenses', { plan: 'lifetime', product: w.productId, email: 'grace@example.com', name: 'Grace' });
      const again = eventA('customer.updated', { eventId: 'evt_to_grace', occurredAt: '2024-04-13T00:00:00.000000Z' });
      again.data.email = 'grace@example.com';
      again.data.name = 'Grace Hopper';
      expect((await w.deliver('provider_a', again)).body.result).toBe('processed');
      const byEmail = new Map((await customers(w)).map((c) => [c.email, c]));
      expect(byEmail.get('grace@example.com')).toMatchObject({ name: 'Grace Hopper', licenseCount: 2 });
      expect(byEmail.get('ada.lovelace@example.com')?.licenseCount ?? 0).toBe(0);
      expect((await detail(w, license.id)).customer).toMatchObject({ email: 'grace@example.com', name: 'Grace Hopper' });
    });

    it("a mapped plan change applies the new plan's maxMajor; only the license's activation override survives it", async () => {
      const w = await world(kind);
      await w.deliver('provider_a', 'customer.created');
      await w.deliver('provider_a', 'transaction.completed.subscription'); // plan pro: maxMajor null
      const [item] = await w.licenses();
      const patched = await w.api('PATCH', `/licenses/${item.id}`, { maxMajor: 7, maxActivations: 9 });
      expect(patched.body).toMatchObject({ maxMajor: 7, maxActivations: 9, activationLimit: 9 });

      const change = eventA('subscription.updated', { eventId: 'evt_plan_change', occurredAt: '2024-04-20T09:00:00.000000Z' });
      change.data.status = 'active';
      change.data.items[0].price.id = PRICES.a.team; // team: maxMajor 3
      expect((await w.deliver('provider_a', change)).body.result).toBe('processed');
      expect(await detail(w, item.id)).toMatchObject({ plan: 'team', maxMajor: 3, maxActivations: 9, activationLimit: 9 });
      const fp = machineFingerprint(w.productId, 'desk');
      const activated = await w.client('activate', { product: w.productId, key: (await detail(w, item.id)).key, fingerprint: fp });
      const payload = JSON.parse(Buffer.from(activated.body.certificate.split('.')[1], 'base64url').toString('utf8'));
      expect(payload).toMatchObject({ plan: 'team', maxMajor: 3 });

      // A status update without a plan change keeps an override set afterwards.
      await w.api('PATCH', `/licenses/${item.id}`, { maxMajor: 5 });
      const status = eventA('subscription.updated', { eventId: 'evt_same_plan', occurredAt: '2024-04-21T09:00:00.000000Z' });
      status.data.status = 'past_due';
      status.data.items[0].price.id = PRICES.a.team;
      await w.deliver('provider_a', status);
      expect(await detail(w, item.id)).toMatchObject({ plan: 'team', status: 'past_due', maxMajor: 5 });
    });
  });
}

describeEverySetup('revoked is final for machines too', (setup) => {
  it('DELETE /activations/{id} on a revoked license answers 409 conflict and changes nothing', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h);
    const activated = await h.client('activate', { product: product.id, key: license.key, fingerprint: fingerprint(product.id, 1) });
    expect(activated.status).toBe(200);
    expect((await h.api('POST', `/licenses/${license.id}/revoke`)).status).toBe(200);
    const events = (await h.api('GET', `/events?license=${license.id}`)).body.data.length;

    const refused = await h.api('DELETE', `/activations/${activated.body.activation}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    const after = (await h.api('GET', `/licenses/${license.id}`)).body;
    expect(after).toMatchObject({ status: 'revoked', activationCount: 1 });
    expect(after.activations.map((a: { id: string }) => a.id)).toEqual([activated.body.activation]);
    expect((await h.api('GET', `/events?license=${license.id}`)).body.data).toHaveLength(events);
  });
});
