import { expect, it } from 'vitest';
import { createPlan, createProduct, fingerprint, licensed } from '../support/fixtures.js';
import { createHarness, describeEverySetup } from '../support/harness.js';

describeEverySetup('licenses, activations, customers and events over HTTP', (setup) => {
  it('creates a license with its key and no activations; the detail shows the key, list items never do', async () => {
    const h = await createHarness(setup);
    const { product, plan, license } = await licensed(h);
    expect(license).toMatchObject({
      product: product.id, plan: 'pro', planId: plan.id, status: 'active', seats: 1, activationLimit: 2,
      customer: { email: 'buyer@example.com', name: 'Ada Buyer' }, activations: [], provider: null,
    });
    expect(license.key.startsWith('ACME')).toBe(true);
    const detail = await h.api('GET', `/licenses/${license.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.key).toBe(license.key);
    const list = await h.api('GET', '/licenses');
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).not.toHaveProperty('key');
    expect(list.body.data[0]).not.toHaveProperty('activations');
  });

  it('filters the license list by product, status, email, q and key', async () => {
    const h = await createHarness(setup);
    const { product, plan, license } = await licensed(h);
    const other = await createProduct(h, { name: 'Other', keyPrefix: 'OTH' });
    const otherPlan = await createPlan(h, other.id, { code: 'life', kind: 'perpetual' });
    const second = await h.api('POST', '/licenses', { plan: 'life', product: other.id, email: 'zed@corp.test', name: 'Zed Zulu' });
    expect(second.status).toBe(201);
    expect(second.body.planId).toBe(otherPlan.id);
    await h.api('POST', `/licenses/${second.body.id}/suspend`);

    const ids = async (query: string) => (await h.api('GET', `/licenses?${query}`)).body.data.map((l: any) => l.id);
    expect(await ids(`product=${product.id}`)).toEqual([license.id]);
    expect(await ids('status=suspended')).toEqual([second.body.id]);
    expect(await ids('email=buyer@example.com')).toEqual([license.id]);
    expect(await ids('q=zulu')).toEqual([second.body.id]);
    expect(await ids(`key=${encodeURIComponent(license.key.toLowerCase())}`)).toEqual([license.id]);
    expect(await ids('')).toEqual([second.body.id, license.id]);
    const badStatus = await h.api('GET', '/licenses?status=sleeping');
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.error.message).toContain('status');
    expect(plan.code).toBe('pro');
  });

  it('patches a license, and suspend, reinstate, revoke answer with the license; a revoked license refuses changes', async () => {
    const h = await createHarness(setup);
    const { license } = await licensed(h);
    const patched = await h.api('PATCH', `/licenses/${license.id}`, { seats: 3, maxActivations: 10 });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ seats: 3, maxActivations: 10, activationLimit: 10 });
    const back = await h.api('PATCH', `/licenses/${license.id}`, { maxActivations: null });
    expect(back.body.activationLimit).toBe(6);

    const suspended = await h.api('POST', `/licenses/${license.id}/suspend`);
    expect(suspended.status).toBe(200);
    expect(suspended.body).toMatchObject({ id: license.id, status: 'suspended' });
    const reinstated = await h.api('POST', `/licenses/${license.id}/reinstate`);
    expect(reinstated.body).toMatchObject({ id: license.id, status: 'active' });
    const sent = await h.api('POST', `/licenses/${license.id}/send-key`);
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ id: license.id, status: 'active' });
    for (const action of [suspended, reinstated, sent]) {
      expect(action.body).not.toHaveProperty('key');
      expect(action.body).not.toHaveProperty('activations');
    }
    const revoked = await h.api('POST', `/licenses/${license.id}/revoke`);
    expect(revoked.body).toMatchObject({ id: license.id, status: 'revoked' });

    for (const [method, path, body] of [
      ['PATCH', `/licenses/${license.id}`, { seats: 1 }],
      ['POST', `/licenses/${license.id}/reinstate`, undefined],
      ['POST', `/licenses/${license.id}/suspend`, undefined],
    ] as const) {
      const res = await h.api(method, path, body);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('conflict');
    }
    expect((await h.api('GET', `/licenses/${license.id}`)).body.status).toBe('revoked');
  });

  it('frees a machine with DELETE /activations/{id}, answering with the license', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h);
    const activated = await h.client('activate', { product: product.id, key: license.key, fingerprint: fingerprint(product.id, 1) });
    expect(activated.status).toBe(200);
    const detail = await h.api('GET', `/licenses/${license.id}`);
    expect(detail.body.activations.map((a: any) => a.id)).toEqual([activated.body.activation]);
    const deleted = await h.api('DELETE', `/activations/${activated.body.activation}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: license.id, activationCount: 0, status: 'active' });
    expect(deleted.body).not.toHaveProperty('key');
    expect((await h.api('GET', `/licenses/${license.id}`)).body.activations).toEqual([]);
    expect((await h.api('DELETE', `/activations/${activated.body.activation}`)).status).toBe(404);
  });

  it('lists customers with licenseCount and filters, shows a customer with licenses, and lists audit events', async () => {
    const h = await createHarness(setup);
    const { license } = await licensed(h);
    const customers = await h.api('GET', '/customers');
    expect(customers.body.data).toEqual([expect.objectContaining({ email: 'buyer@example.com', name: 'Ada Buyer', licenseCount: 1 })]);
    const id = customers.body.data[0].id;
    expect((await h.api('GET', '/customers?email=buyer@example.com')).body.data).toHaveLength(1);
    expect((await h.api('GET', '/customers?q=nobody')).body.data).toHaveLength(0);
    const customer = await h.api('GET', `/customers/${id}`);
    expect(customer.body.licenses.map((l: any) => l.id)).toEqual([license.id]);

    await h.api('POST', `/licenses/${license.id}/suspend`);
    const events = await h.api('GET', `/events?license=${license.id}`);
    expect(events.body.data.map((e: any) => e.type)).toEqual(['license.status_changed', 'license.created']);
    expect(events.body.data[0]).toMatchObject({ license: license.id, data: { from: 'active', to: 'suspended' } });
  });

  it('answers 404 not_found for another account\'s objects and changes nothing', async () => {
    const h = await createHarness(setup);
    const { product, plan, license } = await licensed(h);
    const other = await h.newAccount();
    const as = { key: other.apiKey };
    for (const path of [`/products/${product.id}`, `/plans/${plan.id}`, `/licenses/${license.id}`, `/products/${product.id}/keys`]) {
      const res = await h.api('GET', path, undefined, as);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await h.api('POST', `/licenses/${license.id}/revoke`, undefined, as)).status).toBe(404);
    expect((await h.api('PATCH', `/products/${product.id}`, { name: 'Stolen' }, as)).status).toBe(404);
    expect((await h.api('POST', '/licenses', { plan: plan.id, email: 'x@y.test', paidUntil: '2030-01-01T00:00:00Z' }, as)).status).toBe(404);
    expect((await h.api('GET', '/licenses', undefined, as)).body.data).toEqual([]);
    expect((await h.api('GET', `/licenses/${license.id}`)).body.status).toBe('active');
    expect((await h.api('GET', `/products/${product.id}`)).body.name).toBe('Acme Editor');
  });
});
