import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProviderAClient, ProviderAFetchError } from '../../src/provider-a-client.js';
import { startProviderAApi, type FakeProviderAApi } from '../support/provider-a-api.js';

let api: FakeProviderAApi;
beforeEach(async () => {
  api = await startProviderAApi();
  api.customers.set('ctm_01', { apiKey: 'pdl_key_1', email: 'ada@example.com', name: 'Ada' });
});
afterEach(async () => {
  await api.close();
});

describe('provider_a customer client', () => {
  it('fetches a customer with the API key as a bearer token', async () => {
    const client = createProviderAClient({ baseUrl: `${api.baseUrl}/` });
    const customer = await client.getCustomer({ apiKey: 'pdl_key_1', customerId: 'ctm_01', environment: 'live' });
    expect(customer).toEqual({ id: 'ctm_01', email: 'ada@example.com', name: 'Ada' });
    expect(api.requests).toEqual([{ method: 'GET', path: '/customers/ctm_01', authorization: 'Bearer pdl_key_1' }]);
  });

  it('uses the base URL of the integration environment', async () => {
    const client = createProviderAClient({ baseUrl: { live: 'http://127.0.0.1:9/unused', sandbox: `${api.baseUrl}` } });
    const customer = await client.getCustomer({ apiKey: 'pdl_key_1', customerId: 'ctm_01', environment: 'sandbox' });
    expect(customer?.email).toBe('ada@example.com');
  });

  it('answers null for a customer the provider does not know', async () => {
    const client = createProviderAClient({ baseUrl: api.baseUrl });
    expect(await client.getCustomer({ apiKey: 'pdl_key_1', customerId: 'ctm_missing', environment: 'live' })).toBeNull();
  });

  it('fails with the HTTP status on a refused key or a provider error, never echoing the key', async () => {
    const client = createProviderAClient({ baseUrl: api.baseUrl });
    const refused = await client.getCustomer({ apiKey: 'wrong', customerId: 'ctm_01', environment: 'live' }).catch((e: unknown) => e);
    expect(ProviderAFetchError.is(refused) && refused.status).toBe(403);
    expect(String((refused as Error).message)).not.toContain('wrong');
    api.mode = { status: 503 };
    const down = await client.getCustomer({ apiKey: 'pdl_key_1', customerId: 'ctm_01', environment: 'live' }).catch((e: unknown) => e);
    expect(ProviderAFetchError.is(down) && down.status).toBe(503);
  });

  it('gives up after the configured timeout when the provider does not answer', async () => {
    api.mode = 'hang';
    const client = createProviderAClient({ baseUrl: api.baseUrl, timeoutMs: 200 });
    const error = await client.getCustomer({ apiKey: 'pdl_key_1', customerId: 'ctm_01', environment: 'live' }).catch((e: unknown) => e);
    expect(ProviderAFetchError.is(error)).toBe(true);
    expect((error as Error).message).toMatch(/timed out after 200 ms/);
  });

  it('rejects a body without a valid e-mail', async () => {
    api.customers.set('ctm_bad', { apiKey: 'pdl_key_1', email: 'not-an-email', name: null });
    const client = createProviderAClient({ baseUrl: api.baseUrl });
    const error = await client.getCustomer({ apiKey: 'pdl_key_1', customerId: 'ctm_bad', environment: 'live' }).catch((e: unknown) => e);
    expect(ProviderAFetchError.is(error)).toBe(true);
  });
});
