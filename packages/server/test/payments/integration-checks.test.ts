import { afterEach, expect, it } from 'vitest';
import { signProviderA } from '@svc-licensing/provider-webhooks';
import { createPlan, createProduct } from '../support/fixtures.js';
import { createHarness, describeEveryStore } from '../support/harness.js';
import { createWorld, fixtureJson, PRICES, PROVIDER_A_API_KEY, readFixture, SECRET_A, SECRET_B } from '../support/payment-world.js';
import { startProviderAApi, type FakeProviderAApi } from '../support/provider-a-api.js';

const apis: FakeProviderAApi[] = [];
afterEach(async () => {
  for (const api of apis.splice(0)) await api.close();
});
const CUSTOMER = 'ctm_01hv8wt8nffez4p2t6typn4a5j';

// Misconfigured integrations are refused or flagged where the vendor sets them up, instead of
// failing silently when the first purchase arrives (issue 26).
describeEveryStore('integration set-up checks over HTTP', (setup) => {
  it('refuses a price map naming a plan code the product does not have, on create and on PATCH, and changes nothing', async () => {
    const h = await createHarness(setup);
    const product = await createProduct(h);
    await createPlan(h, product.id, { code: 'pro' });
    const other = await createProduct(h, { name: 'Other', keyPrefix: 'OTHR' });
    await createPlan(h, other.id, { code: 'team' });

    const unknown = await h.api('POST', '/integrations', { provider: 'provider_b', product: product.id, priceMap: { '418830': 'pro', '418823': 'lifetime' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('invalid_request');
    expect(unknown.body.error.message).toContain('"lifetime"');
    expect(unknown.body.error.message).not.toContain('"pro"');
    // A plan of another product of the account is not the integration's.
    const foreign = await h.api('POST', '/integrations', { provider: 'provider_b', product: product.id, priceMap: { '418830': 'team' } });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.message).toContain('"team"');
    expect((await h.api('GET', '/integrations')).body.data).toEqual([]);

    const created = await h.api('POST', '/integrations', { provider: 'provider_b', product: product.id, priceMap: { '418830': 'pro' } });
    expect(created.status).toBe(201);
    const patched = await h.api('PATCH', `/integrations/${created.body.id}`, { priceMap: { '418830': 'pro', '418823': 'Pro' } });
    expect(patched.status).toBe(400);
    expect(patched.body.error.message).toContain('"Pro"');
    expect((await h.api('GET', `/integrations/${created.body.id}`)).body.priceMap).toEqual({ '418830': 'pro' });

    await createPlan(h, product.id, { code: 'lifetime', kind: 'perpetual' });
    const fixed = await h.api('PATCH', `/integrations/${created.body.id}`, { priceMap: { '418830': 'pro', '418823': 'lifetime' } });
    expect(fixed.status).toBe(200);
    expect(fixed.body.priceMap).toEqual({ '418830': 'pro', '418823': 'lifetime' });
  });

  it('answers a refused delivery 401 saying which check failed, and logs the reason, never the secret', async () => {
    const w = await createWorld(setup);
    const a = readFixture('provider_a', 'customer.created');
    const b = readFixture('provider_b', 'order_created');
    const ts = Math.floor(w.clock.now() / 1000);
    const cases = [
      { answer: await w.deliver('provider_b', b, { signature: null }), reason: 'missing_header', says: 'X-Signature header is missing' },
      { answer: await w.deliver('provider_b', b, { signature: 'zz' }), reason: 'malformed_header', says: 'malformed' },
      { answer: await w.deliver('provider_b', b, { secret: 'not-the-secret' }), reason: 'signature_mismatch', says: 'does not match' },
      { answer: await w.deliver('provider_a', a, { signature: null }), reason: 'missing_header', says: 'Provider-A-Signature header is missing' },
      { answer: await w.deliver('provider_a', a, { signature: `ts=${ts}` }), reason: 'malformed_header', says: 'malformed' },
      { answer: await w.deliver('provider_a', a, { signature: signProviderA(a, SECRET_A, ts - 301) }), reason: 'timestamp_out_of_range', says: '300 seconds' },
      { answer: await w.deliver('provider_a', a, { signature: signProviderA(a, 'other', ts) }), reason: 'signature_mismatch', says: 'does not match' },
    ];
    for (const { answer, says } of cases) {
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe('unauthorized');
      expect(answer.body.error.message).toContain(says);
    }
    const refusedLines = w.harness.logLines.filter((line) => String(line.path).startsWith('/v1/webhooks/') && line.status === 401);
    expect(refusedLines.map((line) => line.reason)).toEqual(cases.map((c) => c.reason));
    expect(refusedLines.every((line) => line.error === 'unauthorized')).toBe(true);
    const everything = JSON.stringify([w.harness.logLines, cases.map((c) => c.answer.body)]);
    expect(everything).not.toContain(SECRET_A);
    expect(everything).not.toContain(SECRET_B);
    expect(await w.licenses()).toEqual([]);

    // No secret saved: that is what the answer says, whatever the header holds.
    const unset = await createWorld(setup, { secrets: false });
    const none = await unset.deliver('provider_b', b);
    expect(none.status).toBe(401);
    expect(none.body.error.message).toContain('No webhook secret is saved');
    expect(unset.harness.logLines.find((line) => line.status === 401)?.reason).toBe('missing_secret');
  });

  it('acts on an event only in its own environment: test mode ignored by a live integration (200, audited), live ignored by a sandbox one', async () => {
    const w = await createWorld(setup);
    const testOrder = fixtureJson('provider_b', 'order_created');
    testOrder.meta.test_mode = true;
    testOrder.data.id = '9000001'; // test-mode orders have their own IDs
    const ignored = await w.deliver('provider_b', testOrder);
    expect(ignored.status).toBe(200);
    expect(ignored.body.result).toBe('ignored');
    expect(ignored.body.detail).toContain('test-mode event reached the live integration');
    expect(await w.licenses()).toEqual([]);
    expect(w.smtp.messages).toHaveLength(0);
    const logged = await w.events('webhook.received');
    expect(logged.map((e) => e.data)).toEqual([{ provider: 'provider_b', eventType: 'order_created', result: 'ignored', detail: ignored.body.detail }]);

    const sandbox = await w.api('POST', '/integrations', {
      provider: 'provider_b', product: w.productId, environment: 'sandbox', webhookSecret: 'ls_sandbox_secret', priceMap: { [PRICES.b.lifetime]: 'lifetime' },
    });
    expect(sandbox.status).toBe(201);
    // A live order reaching the sandbox integration issues nothing.
    const liveToSandbox = await w.deliver('provider_b', 'order_created', { integrationId: sandbox.body.id, secret: 'ls_sandbox_secret' });
    expect(liveToSandbox.status).toBe(200);
    expect(liveToSandbox.body.result).toBe('ignored');
    expect(liveToSandbox.body.detail).toContain('live event reached the sandbox integration');
    expect(await w.licenses()).toEqual([]);
    // Each environment's own events go through.
    const tested = await w.deliver('provider_b', testOrder, { integrationId: sandbox.body.id, secret: 'ls_sandbox_secret' });
    expect(tested.body.result).toBe('processed');
    const live = await w.deliver('provider_b', 'order_created');
    expect(live.body.result).toBe('processed');
    expect(await w.licenses()).toHaveLength(2);
  });

  it('looks customers up at the API address of the integration\'s environment, and warns on an integration whose API key cannot be used', async () => {
    const live = await startProviderAApi();
    const sandboxApi = await startProviderAApi();
    apis.push(live, sandboxApi);
    live.customers.set(CUSTOMER, { apiKey: PROVIDER_A_API_KEY, email: 'ada@example.com', name: 'Ada' });
    sandboxApi.customers.set(CUSTOMER, { apiKey: 'pdl_sandbox_key', email: 'tester@example.com', name: 'Tester' });

    // Only a live address: the sandbox integration's key cannot be used, and says so.
    const w = await createWorld(setup, { providerAApiUrl: { live: live.baseUrl }, providerAApiKey: true });
    const sandbox = await w.api('POST', '/integrations', {
      provider: 'provider_a', product: w.productId, environment: 'sandbox', webhookSecret: 'pdl_ntfset_sandbox', apiKey: 'pdl_sandbox_key',
      priceMap: { [PRICES.a.lifetime]: 'lifetime' },
    });
    expect(sandbox.status).toBe(201);
    const expected = [{ code: 'api_key_unused', message: expect.stringContaining('--provider-a-api-url-sandbox') }];
    expect(sandbox.body.warnings).toEqual(expected);
    expect((await w.api('GET', `/integrations/${sandbox.body.id}`)).body.warnings).toEqual(expected);
    const listed = (await w.api('GET', '/integrations')).body.data as { id: string; warnings: unknown[] }[];
    expect(Object.fromEntries(listed.map((i) => [i.id, i.warnings]))).toEqual({ [sandbox.body.id]: expected, [w.integrationA]: [], [w.integrationB]: [] });
    // The sandbox key is never sent to the live API: the purchase waits for customer.created.
    const waiting = await w.deliver('provider_a', 'transaction.completed', { integrationId: sandbox.body.id, secret: 'pdl_ntfset_sandbox' });
    expect(waiting.status).toBe(500);
    expect(waiting.body.error.code).toBe('customer_unknown');
    expect(live.requests).toEqual([]);
    // The live integration's lookup goes to the live address.
    expect((await w.deliver('provider_a', 'transaction.completed')).body.result).toBe('processed');
    expect(live.requests.map((r) => r.authorization)).toEqual([`Bearer ${PROVIDER_A_API_KEY}`]);
    // Without the key, nothing to warn about.
    expect((await w.api('PATCH', `/integrations/${sandbox.body.id}`, { apiKey: null })).body.warnings).toEqual([]);

    // One address per environment: each integration asks its own.
    const both = await createWorld(setup, { providerAApiUrl: { live: live.baseUrl, sandbox: sandboxApi.baseUrl } });
    const sandbox2 = await both.api('POST', '/integrations', {
      provider: 'provider_a', product: both.productId, environment: 'sandbox', webhookSecret: 'pdl_ntfset_sandbox', apiKey: 'pdl_sandbox_key',
      priceMap: { [PRICES.a.lifetime]: 'lifetime' },
    });
    expect(sandbox2.body.warnings).toEqual([]);
    const tested = await both.deliver('provider_a', 'transaction.completed', { integrationId: sandbox2.body.id, secret: 'pdl_ntfset_sandbox' });
    expect(tested.body.result).toBe('processed');
    expect(sandboxApi.requests.map((r) => r.authorization)).toEqual(['Bearer pdl_sandbox_key']);
    expect(live.requests).toHaveLength(1);
    expect((await both.licenses())[0].customer.email).toBe('tester@example.com');
  });

  it('warns on an integration whose price map was saved naming a plan its product does not have', async () => {
    const w = await createWorld(setup);
    // A map saved before unknown codes were refused (or imported): written to the store directly.
    await w.harness.store().transaction(async (tx) => {
      const record = await tx.get('integrations', w.integrationB);
      await tx.update('integrations', { ...record!, priceMap: { ...record!.priceMap, var_gone: 'gold' } });
    });
    const expected = [{ code: 'unknown_plan_code', message: expect.stringContaining('"gold"') }];
    expect((await w.api('GET', `/integrations/${w.integrationB}`)).body.warnings).toEqual(expected);
    const listed = (await w.api('GET', '/integrations')).body.data as { id: string; warnings: unknown[] }[];
    expect(listed.find((i) => i.id === w.integrationB)!.warnings).toEqual(expected);
    expect(listed.find((i) => i.id === w.integrationA)!.warnings).toEqual([]);
    // Still there after a change that leaves the map alone; gone once the map is fixed.
    expect((await w.api('PATCH', `/integrations/${w.integrationB}`, { webhookSecret: SECRET_B })).body.warnings).toEqual(expected);
    expect((await w.api('PATCH', `/integrations/${w.integrationB}`, { priceMap: { [PRICES.b.pro]: 'pro' } })).body.warnings).toEqual([]);
  });
});
