import { expect, it } from 'vitest';
import { createPlan, createProduct } from '../support/fixtures.js';
import { createHarness, describeEverySetup, PUBLIC_BASE_URL } from '../support/harness.js';

describeEverySetup('integrations, API keys and the account over HTTP', (setup) => {
  it('creates integrations with write-only secrets and a webhookUrl under the public base URL', async () => {
    const h = await createHarness(setup);
    const product = await createProduct(h);
    await createPlan(h, product.id, { code: 'pro' });
    await createPlan(h, product.id, { code: 'basic' });
    const created = await h.api('POST', '/integrations', {
      provider: 'provider_a', product: product.id, webhookSecret: 'whsec_very_secret', apiKey: 'pa_api_secret', priceMap: { pri_1: 'pro' },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(created.body).toEqual({
      id, provider: 'provider_a', product: product.id, environment: 'live', priceMap: { pri_1: 'pro' },
      hasWebhookSecret: true, hasApiKey: true, webhookUrl: `${PUBLIC_BASE_URL}/v1/webhooks/provider_a/${id}`,
      // This server has no provider_a API address: the key is saved but cannot be used.
      warnings: [{ code: 'api_key_unused', message: expect.stringContaining('--provider-a-api-url-live') }],
      ...(created.body.createdAt ? { createdAt: created.body.createdAt } : {}),
      ...(created.body.updatedAt ? { updatedAt: created.body.updatedAt } : {}),
    });
    const everything = JSON.stringify([created.body, (await h.api('GET', '/integrations')).body, (await h.api('GET', `/integrations/${id}`)).body]);
    expect(everything).not.toContain('whsec_very_secret');
    expect(everything).not.toContain('pa_api_secret');

    const dup = await h.api('POST', '/integrations', { provider: 'provider_a', product: product.id });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('conflict');
    const bApiKey = await h.api('POST', '/integrations', { provider: 'provider_b', product: product.id, apiKey: 'x' });
    expect(bApiKey.status).toBe(400);
    expect(bApiKey.body.error.message).toContain('apiKey');

    const patched = await h.api('PATCH', `/integrations/${id}`, { apiKey: null, priceMap: { pri_2: 'basic' } });
    expect(patched.body).toMatchObject({ hasApiKey: false, hasWebhookSecret: true, priceMap: { pri_2: 'basic' }, webhookUrl: created.body.webhookUrl });
    const deleted = await h.api('DELETE', `/integrations/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id, deleted: true });
    expect((await h.api('GET', `/integrations/${id}`)).status).toBe(404);
  });

  it('creates an API key shown once, lists it by prefix, and a revoked key gets 401', async () => {
    const h = await createHarness(setup);
    const created = await h.api('POST', '/api-keys', { name: 'CI' });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^svc_sk_.{32}$/);
    expect(created.body.prefix).toBe(created.body.key.slice(0, 10));
    const list = await h.api('GET', '/api-keys');
    expect(list.body.data.map((k: any) => k.name)).toContain('CI');
    expect(JSON.stringify(list.body)).not.toContain(created.body.key);

    expect((await h.api('GET', '/account', undefined, { key: created.body.key })).status).toBe(200);
    const listed = (await h.api('GET', '/api-keys')).body.data.find((k: any) => k.id === created.body.id);
    expect(listed.lastUsedAt).not.toBeNull();
    const revoked = await h.api('DELETE', `/api-keys/${created.body.id}`);
    expect(revoked.body).toEqual({ id: created.body.id, deleted: true });
    const refused = await h.api('GET', '/account', undefined, { key: created.body.key });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('unauthorized');
  });

  it('reads and updates the account, usage, billing and the sender domain; owner-only sender-domain calls answer 400', async () => {
    const h = await createHarness(setup);
    const account = await h.api('GET', '/account');
    expect(account.status).toBe(200);
    expect(account.body).toMatchObject({ name: 'Vendor', defaultLocale: 'en' });
    const patched = await h.api('PATCH', '/account', {
      senderName: 'Acme Sales', senderEmail: 'sales@acme.test', replyTo: '', defaultLocale: 'fr',
      customerPortal: { mode: 'custom', url: 'https://portal.acme.test' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ senderName: 'Acme Sales', senderEmail: 'sales@acme.test', replyTo: null, defaultLocale: 'fr' });
    expect(patched.body.customerPortal).toEqual({ mode: 'custom', url: expect.stringMatching(/^https:\/\/portal\.acme\.test\/?$/) });
    const httpPortal = await h.api('PATCH', '/account', { customerPortal: { mode: 'custom', url: 'http://portal.acme.test' } });
    expect(httpPortal.status).toBe(400);
    expect(httpPortal.body.error.message).toContain('customerPortal');

    await createProduct(h);
    const usage = await h.api('GET', '/account/usage');
    expect(usage.body).toMatchObject({ products: 1, activeLicenses: 0, overLimit: false });
    const billing = await h.api('GET', '/account/billing');
    expect(billing.status).toBe(200);
    expect(billing.body).toHaveProperty('plan');

    expect((await h.api('GET', '/account/sender-domain')).body).toEqual({
      domain: null, status: 'none', senderEmail: null, records: [], createdAt: null, checkedAt: null, verifiedAt: null,
    });
    expect((await h.api('POST', '/account/sender-domain/verify')).body.error.code).toBe('not_found');
    for (const method of ['POST', 'DELETE']) {
      const res = await h.api(method, '/account/sender-domain', method === 'POST' ? { domain: 'acme.test' } : undefined);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('owner_session_required');
    }
  });

  it('answers 402 plan_limit when a product is beyond the service plan', async () => {
    const h = await createHarness(setup);
    const free = await h.newAccount('free');
    const as = { key: free.apiKey };
    const usage = (await h.api('GET', '/account/usage', undefined, as)).body;
    expect(usage).toMatchObject({ plan: 'free', products: 0, productLimit: expect.any(Number) });
    for (let i = 0; i < usage.productLimit; i++) await createProduct(h, { keyPrefix: `P${i}` }, free.apiKey);
    const over = await h.api('POST', '/products', { name: 'One too many', keyPrefix: 'OVER' }, as);
    expect(over.status).toBe(402);
    expect(over.body.error.code).toBe('plan_limit');
    expect((await h.api('GET', '/products', undefined, as)).body.data).toHaveLength(usage.productLimit);
  });
});
