import { afterEach, expect, it } from 'vitest';
import { createWorld, eventA, PROVIDER_A_API_KEY, type World } from '../support/payment-world.js';
import { describeEveryStore } from '../support/harness.js';
import { startProviderAApi, type FakeProviderAApi } from '../support/provider-a-api.js';

const CUSTOMER = 'ctm_01hv8wt8nffez4p2t6typn4a5j';

let api: FakeProviderAApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const customers = async (w: World) => (await w.api('GET', '/customers')).body.data as { id: string; email: string; name: string; licenseCount: number }[];

describeEveryStore('customers of payment events', (setup) => {
  it('provider_a: an unknown customer gets 500 and nothing is created; the retry after customer.created creates the license', async () => {
    const w = await createWorld(setup);
    const first = await w.deliver('provider_a', 'transaction.completed');
    expect(first.status).toBe(500);
    expect(first.body.error.code).toBe('customer_unknown');
    expect(await w.licenses()).toEqual([]);
    expect(await customers(w)).toEqual([]);
    expect(w.smtp.messages).toHaveLength(0);

    expect((await w.deliver('provider_a', 'customer.created')).body.result).toBe('processed');
    const retry = await w.deliver('provider_a', 'transaction.completed');
    expect(retry.status).toBe(200);
    expect(retry.body.result).toBe('processed');
    const [license] = await w.licenses();
    expect(license.customer.email).toBe('ada@example.com');
    expect((await w.smtp.waitFor(1))[0]!.envelope.to).toEqual(['ada@example.com']);
  });

  it('provider_a: customer.updated changes the e-mail the next license is issued to', async () => {
    const w = await createWorld(setup);
    await w.deliver('provider_a', 'customer.created');
    await w.deliver('provider_a', 'customer.updated');
    await w.deliver('provider_a', 'transaction.completed');
    const [license] = await w.licenses();
    expect(license.customer).toMatchObject({ email: 'ada.lovelace@example.com', name: 'Ada Lovelace' });
  });

  it('provider_a: with an API key, an unknown customer is fetched at once and the license created on the first delivery', async () => {
    api = await startProviderAApi();
    api.customers.set(CUSTOMER, { apiKey: PROVIDER_A_API_KEY, email: 'ada@example.com', name: 'Ada Lovelace' });
    const w = await createWorld(setup, { providerAApiUrl: api.baseUrl, providerAApiKey: true });
    const integration = await w.api('GET', `/integrations/${w.integrationA}`);
    expect(integration.body).toMatchObject({ hasApiKey: true, hasWebhookSecret: true });
    expect(JSON.stringify(integration.body)).not.toContain(PROVIDER_A_API_KEY);

    const answer = await w.deliver('provider_a', 'transaction.completed');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.result).toBe('processed');
    expect(api.requests).toEqual([{ method: 'GET', path: `/customers/${CUSTOMER}`, authorization: `Bearer ${PROVIDER_A_API_KEY}` }]);
    const [license] = await w.licenses();
    expect(license.customer).toMatchObject({ email: 'ada@example.com', name: 'Ada Lovelace' });
    expect((await w.smtp.waitFor(1))[0]!.envelope.to).toEqual(['ada@example.com']);
  });

  it('provider_a: a fetched customer is remembered, so a later event of that customer fetches nothing', async () => {
    api = await startProviderAApi();
    api.customers.set(CUSTOMER, { apiKey: PROVIDER_A_API_KEY, email: 'ada@example.com', name: 'Ada Lovelace' });
    const w = await createWorld(setup, { providerAApiUrl: api.baseUrl, providerAApiKey: true });
    expect((await w.deliver('provider_a', 'transaction.completed')).body.result).toBe('processed');
    expect(api.requests).toHaveLength(1);

    // Another purchase of the same customer (a new subscription) names only the customer ID again.
    const second = await w.deliver('provider_a', 'transaction.completed.subscription');
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.result).toBe('processed');
    expect(api.requests).toHaveLength(1);
    const licenses = await w.licenses();
    expect(licenses.map((l) => [l.plan, l.customer.email])).toEqual([
      ['lifetime', 'ada@example.com'],
      ['pro', 'ada@example.com'],
    ]);
    expect(await customers(w)).toHaveLength(1);
  });

  it('provider_a: when the lookup fails the delivery gets 500 and the provider retry succeeds', async () => {
    api = await startProviderAApi();
    api.customers.set(CUSTOMER, { apiKey: PROVIDER_A_API_KEY, email: 'ada@example.com', name: null });
    api.mode = { status: 503 };
    const w = await createWorld(setup, { providerAApiUrl: api.baseUrl, providerAApiKey: true });
    const failed = await w.deliver('provider_a', 'transaction.completed');
    expect(failed.status).toBe(500);
    expect(failed.body.error.code).toBe('customer_unknown');
    expect(await w.licenses()).toEqual([]);

    api.mode = 'normal';
    const retry = await w.deliver('provider_a', 'transaction.completed');
    expect(retry.body.result).toBe('processed');
    expect(await w.licenses()).toHaveLength(1);
  });

  it('provider_a: without an API key nothing is fetched', async () => {
    api = await startProviderAApi();
    const w = await createWorld(setup, { providerAApiUrl: api.baseUrl, providerAApiKey: false });
    expect((await w.deliver('provider_a', 'transaction.completed')).status).toBe(500);
    expect(api.requests).toEqual([]);
  });

  it('customers are matched by e-mail within the account, across providers and manual licenses', async () => {
    const w = await createWorld(setup);
    await w.deliver('provider_b', 'order_created'); // grace@example.com
    w.clock.set('2024-06-05T12:00:00Z');
    await w.deliver('provider_b', 'subscription_created'); // grace@example.com again
    const paidUntil = '2024-12-31T00:00:00Z';
    const plans = (await w.api('GET', `/products/${w.productId}/plans`)).body.data as { id: string; code: string }[];
    const manual = await w.api('POST', '/licenses', { plan: plans.find((p) => p.code === 'pro')!.id, email: 'GRACE@example.com', paidUntil });
    expect(manual.status).toBe(201);
    const list = await customers(w);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ email: 'grace@example.com', licenseCount: 3 });

    await w.deliver('provider_a', 'customer.created');
    await w.deliver('provider_a', 'transaction.completed');
    expect((await customers(w)).map((c) => c.email).sort()).toEqual(['ada@example.com', 'grace@example.com']);
  });

  it('one integration per product, provider and environment', async () => {
    const w = await createWorld(setup);
    const dup = await w.api('POST', '/integrations', { provider: 'provider_a', product: w.productId });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('conflict');
    const sandbox = await w.api('POST', '/integrations', { provider: 'provider_a', product: w.productId, environment: 'sandbox' });
    expect(sandbox.status).toBe(201);
    expect(sandbox.body.webhookUrl).toBe(`https://licensing.example.test/v1/webhooks/provider_a/${sandbox.body.id}`);
  });

  it('a customer event changes no license', async () => {
    const w = await createWorld(setup);
    await w.deliver('provider_a', 'customer.created');
    await w.deliver('provider_a', 'transaction.completed');
    const before = (await w.licenses())[0];
    const renamed = eventA('customer.updated', { eventId: 'evt_rename', occurredAt: '2024-04-13T00:00:00.000000Z' });
    await w.deliver('provider_a', renamed);
    const after = (await w.licenses())[0];
    expect(after).toMatchObject({ id: before.id, status: before.status, plan: before.plan, seats: before.seats, paidUntil: before.paidUntil });
  });
});
