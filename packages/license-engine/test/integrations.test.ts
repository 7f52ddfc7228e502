import { beforeEach, describe, expect, it } from 'vitest';
import type { Catalog, TestEngine } from './fixtures.js';
import { codeOf, createCatalog, refusedCode, createTestEngine, paid } from './fixtures.js';

let t: TestEngine;
let c: Catalog;

beforeEach(async () => {
  t = createTestEngine();
  c = await createCatalog(t);
});

describe('integrations', () => {
  it('show hasWebhookSecret and hasApiKey instead of the write-only secrets, which are stored encrypted', async () => {
    const created = await t.engine.createIntegration(c.account.id, { provider: 'provider_a', product: c.product.id, environment: 'sandbox', apiKey: 'pk_live_secret' });
    expect(created).toEqual({
      id: expect.stringMatching(/^int_/),
      provider: 'provider_a',
      product: c.product.id,
      environment: 'sandbox',
      priceMap: {},
      hasWebhookSecret: false,
      hasApiKey: true,
      warnings: [],
    });
    const record = await t.store.transaction((tx) => tx.get('integrations', created.id));
    expect(JSON.stringify(record)).not.toContain('pk_live_secret');
    const before = await t.engine.getIntegrationSecrets(created.id);
    expect(before).toEqual({ integration: created, accountId: c.account.id, webhookSecret: null, apiKey: 'pk_live_secret', secretsVersion: expect.any(String) });
    expect(before!.secretsVersion).not.toContain('pk_live_secret');
    const updated = await t.engine.updateIntegration(c.account.id, created.id, { webhookSecret: 'whsec_new', apiKey: null, priceMap: { pri_x: 'pro' } });
    expect(updated).toMatchObject({ hasWebhookSecret: true, hasApiKey: false, priceMap: { pri_x: 'pro' } });
    const after = await t.engine.getIntegrationSecrets(created.id);
    expect(after).toMatchObject({ webhookSecret: 'whsec_new', apiKey: null });
    // The version names the secrets held: a new secret changes it, a price map change does not.
    expect(after!.secretsVersion).not.toBe(before!.secretsVersion);
    await t.engine.updateIntegration(c.account.id, created.id, { priceMap: { pri_y: 'pro' } });
    expect((await t.engine.getIntegrationSecrets(created.id))!.secretsVersion).toBe(after!.secretsVersion);
    await t.engine.updateIntegration(c.account.id, created.id, { webhookSecret: 'whsec_new' });
    expect((await t.engine.getIntegrationSecrets(created.id))!.secretsVersion).not.toBe(after!.secretsVersion);
  });

  it('one per product, provider and environment: a duplicate is conflict, on create and on update', async () => {
    expect(await codeOf(t.engine.createIntegration(c.account.id, { provider: 'provider_a', product: c.product.id }))).toBe('conflict');
    const sandbox = await t.engine.createIntegration(c.account.id, { provider: 'provider_a', product: c.product.id, environment: 'sandbox' });
    expect(await codeOf(t.engine.updateIntegration(c.account.id, sandbox.id, { environment: 'live' }))).toBe('conflict');
  });

  it('validates input: provider, environment, apiKey only for provider_a, priceMap of strings', async () => {
    const other = await t.engine.createProduct(c.account.id, { name: 'Other', keyPrefix: 'OT-' });
    for (const input of [
      { provider: 'provider_c', product: other.id },
      { provider: 'provider_a', product: other.id, environment: 'staging' },
      { provider: 'provider_b', product: other.id, apiKey: 'x' },
      { provider: 'provider_a', product: other.id, priceMap: { pri_1: 7 } },
      { provider: 'provider_a', product: other.id, priceMap: ['pro'] },
    ]) {
      expect(await codeOf(t.engine.createIntegration(c.account.id, input as never)), JSON.stringify(input)).toBe('invalid_request');
    }
    expect(await codeOf(t.engine.createIntegration(c.account.id, { provider: 'provider_a', product: 'prd_missing' }))).toBe('not_found');
  });

  it('deleting one makes its webhooks not_found; another account cannot see it', async () => {
    const otherAccount = (await t.engine.createAccount({ name: 'O', ownerEmail: 'o@example.test' })).account.id;
    expect(await codeOf(t.engine.getIntegration(otherAccount, c.providerB.id))).toBe('not_found');
    expect(await codeOf(t.engine.deleteIntegration(otherAccount, c.providerB.id))).toBe('not_found');
    expect((await t.engine.listIntegrations(c.account.id)).data.map((i) => i.id)).toEqual([c.providerB.id, c.providerA.id]);
    await t.engine.deleteIntegration(c.account.id, c.providerB.id);
    expect(await t.engine.getIntegrationSecrets(c.providerB.id)).toBeNull();
    expect(await refusedCode(t.engine.applyPaymentCommand(c.providerB.id, paid({ occurredAt: '2030-01-15T09:00:00Z', paidUntil: '2030-02-15T09:00:00Z' })))).toBe('not_found');
  });
});
