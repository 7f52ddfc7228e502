import { expect, it } from 'vitest';
import { createPlan, createProduct } from '../support/fixtures.js';
import { createHarness, describeEverySetup } from '../support/harness.js';

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describeEverySetup('products, signing keys and plans over HTTP', (setup) => {
  it('creates, lists, reads and updates products; creation also creates the active key k1', async () => {
    const h = await createHarness(setup);
    const product = await createProduct(h);
    expect(product).toMatchObject({ name: 'Acme Editor', keyPrefix: 'ACME', graceDays: 3, offlineDays: 14 });
    expect(product.id).toMatch(/^prd_/);
    expect((product as any).createdAt).toMatch(TS);

    const second = await createProduct(h, { name: 'Second', keyPrefix: 'SEC' });
    const list = await h.api('GET', '/products');
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: any) => p.id)).toEqual([second.id, product.id]);
    expect(list.body.nextCursor).toBeNull();

    expect((await h.api('GET', `/products/${product.id}`)).body).toEqual(product);
    const patched = await h.api('PATCH', `/products/${product.id}`, { name: 'Acme Editor 2', graceDays: 5 });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: product.id, name: 'Acme Editor 2', graceDays: 5, keyPrefix: 'ACME' });

    const keys = await h.api('GET', `/products/${product.id}/keys`);
    expect(keys.body.data).toEqual([
      { kid: 'k1', publicKey: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), status: 'active', createdAt: expect.stringMatching(TS), activatedAt: expect.stringMatching(TS) },
    ]);
  });

  it('pages lists 50 at a time with an opaque cursor, and refuses an invalid cursor', async () => {
    const h = await createHarness(setup);
    const product = await createProduct(h);
    for (let i = 0; i < 51; i++) await createPlan(h, product.id, { code: `plan-${i}` });
    const first = await h.api('GET', `/products/${product.id}/plans`);
    expect(first.body.data).toHaveLength(50);
    expect(first.body.data[0].code).toBe('plan-50');
    expect(typeof first.body.nextCursor).toBe('string');
    const second = await h.api('GET', `/products/${product.id}/plans?cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body.data.map((p: any) => p.code)).toEqual(['plan-0']);
    expect(second.body.nextCursor).toBeNull();

    const bad = await h.api('GET', `/products/${product.id}/plans?cursor=not-a-cursor!!`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
  });

  it('rotates signing keys: pending, conflict on a second pending, activate retires the old one, retired cannot be activated', async () => {
    const h = await createHarness(setup);
    const product = await createProduct(h);
    const pending = await h.api('POST', `/products/${product.id}/keys`);
    expect(pending.status).toBe(201);
    expect(pending.body).toMatchObject({ kid: 'k2', status: 'pending', activatedAt: null });
    const again = await h.api('POST', `/products/${product.id}/keys`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');

    const activated = await h.api('POST', `/products/${product.id}/keys/k2/activate`);
    expect(activated.status).toBe(200);
    const idempotent = await h.api('POST', `/products/${product.id}/keys/k2/activate`);
    expect(idempotent.status).toBe(200);
    const keys = await h.api('GET', `/products/${product.id}/keys`);
    expect(keys.body.data.map((k: any) => [k.kid, k.status])).toEqual([['k1', 'retired'], ['k2', 'active']]);
    const retired = await h.api('POST', `/products/${product.id}/keys/k1/activate`);
    expect(retired.status).toBe(409);
    expect(retired.body.error.code).toBe('conflict');
    expect((await h.api('POST', `/products/${product.id}/keys/k9/activate`)).status).toBe(404);
  });

  it('refuses the owner-only key export with an API key: 400 owner_session_required, no private key in the answer', async () => {
    const h = await createHarness(setup);
    const product = await createProduct(h);
    const res = await h.api('POST', `/products/${product.id}/keys/export`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('owner_session_required');
    expect(JSON.stringify(res.body)).not.toMatch(/privateKey/);
    const events = await h.api('GET', '/events');
    expect(events.body.data.map((e: any) => e.type)).not.toContain('signing_key.exported');
  });

  it('creates plans with defaults, refuses a duplicate code, updates without touching code and kind', async () => {
    const h = await createHarness(setup);
    const product = await createProduct(h);
    const trial = await h.api('POST', `/products/${product.id}/plans`, { code: 'trial', kind: 'trial' });
    expect(trial.status).toBe(201);
    expect(trial.body).toMatchObject({ code: 'trial', name: 'trial', kind: 'trial', maxActivations: 1, trialDays: 14, offlineDays: null, maxMajor: null });
    const dup = await h.api('POST', `/products/${product.id}/plans`, { code: 'trial', kind: 'perpetual' });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('conflict');

    const updated = await h.api('PATCH', `/plans/${trial.body.id}`, { name: 'Free trial', offlineDays: 7, maxMajor: 3 });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Free trial', offlineDays: 7, maxMajor: 3, code: 'trial' });
    const cleared = await h.api('PATCH', `/plans/${trial.body.id}`, { offlineDays: null });
    expect(cleared.body.offlineDays).toBeNull();
    const codeChange = await h.api('PATCH', `/plans/${trial.body.id}`, { code: 'other' });
    expect(codeChange.status).toBe(400);
    expect(codeChange.body.error).toEqual({ code: 'invalid_request', message: expect.stringContaining('code') });
    expect((await h.api('GET', `/plans/${trial.body.id}`)).body).toMatchObject({ code: 'trial', kind: 'trial', name: 'Free trial' });
  });

  it('names the invalid field of a refused body and creates nothing', async () => {
    const h = await createHarness(setup);
    const product = await createProduct(h);
    const bad = await h.api('POST', `/products/${product.id}/plans`, { code: 'pro', kind: 'subscription', offlineDays: 400 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    expect(bad.body.error.message).toContain('offlineDays');
    const missing = await h.api('POST', '/products', { keyPrefix: 'X' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain('name');
    const unknown = await h.api('POST', '/products', { name: 'X', keyPrefix: 'X', colour: 'red' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('colour');
    expect((await h.api('GET', `/products/${product.id}/plans`)).body.data).toEqual([]);
    expect((await h.api('GET', '/products')).body.data).toHaveLength(1);
  });
});
