import { beforeEach, describe, expect, it } from 'vitest';
import type { TestEngine } from './fixtures.js';
import { DAY, START, codeOf, createCatalog, createTestEngine, fingerprint, paid } from './fixtures.js';

let t: TestEngine;

beforeEach(() => {
  t = createTestEngine();
});

describe('accounts and API keys', () => {
  it('creating an account returns it and a first API key shown once; authenticate finds the account by it', async () => {
    const { account, apiKey } = await t.engine.createAccount({ name: 'Acme', ownerEmail: 'Owner@Acme.test' });
    expect(account).toEqual({
      id: expect.stringMatching(/^acc_/),
      name: 'Acme',
      ownerEmail: 'owner@acme.test',
      plan: 'free',
      portalUrl: null,
      senderName: null,
      senderEmail: null,
      replyTo: null,
      defaultLocale: 'en',
      customerPortal: { mode: 'svc' },
      portalReleaseLimit: 3,
      status: 'open',
      closedAt: null,
      createdAt: START,
    });
    expect(apiKey.key).toMatch(/^svc_sk_[A-Za-z0-9]{32}$/);
    expect(apiKey.prefix).toBe(apiKey.key.slice(0, 10));
    t.clock.advance(5000);
    expect(await t.engine.authenticate(apiKey.key)).toEqual({ accountId: account.id, apiKeyId: apiKey.id });
    const [listed] = (await t.engine.listApiKeys(account.id)).data;
    expect(listed).toEqual({
      id: apiKey.id, name: 'default', prefix: apiKey.prefix, lastUsedAt: '2030-01-15T10:00:05Z', createdAt: START,
      createdBy: { kind: 'operator', email: null, apiKeyId: null },
    });
  });

  it('records lastUsedAt at most once a minute: later uses within the minute only read', async () => {
    const { account, apiKey } = await t.engine.createAccount({ name: 'Acme', ownerEmail: 'owner@acme.test' });
    const lastUsed = async () => (await t.engine.listApiKeys(account.id)).data[0]!.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    await t.engine.authenticate(apiKey.key);
    expect(await lastUsed()).toBe('2030-01-15T10:00:00Z');
    t.clock.advance(59_000);
    expect(await t.engine.authenticate(apiKey.key)).toEqual({ accountId: account.id, apiKeyId: apiKey.id });
    expect(await lastUsed()).toBe('2030-01-15T10:00:00Z');
    t.clock.advance(2_000);
    await t.engine.authenticate(apiKey.key);
    expect(await lastUsed()).toBe('2030-01-15T10:01:01Z');
  });

  it('stores only the SHA-256 of a key; an unknown, malformed or revoked key authenticates nobody', async () => {
    const { account, apiKey } = await t.engine.createAccount({ name: 'Acme', ownerEmail: 'owner@acme.test' });
    const [record] = await t.store.transaction((tx) => tx.findMany('apiKeys', { accountId: account.id }));
    expect(JSON.stringify(record)).not.toContain(apiKey.key);
    expect(await t.engine.authenticate(apiKey.key.slice(0, -1) + (apiKey.key.endsWith('A') ? 'B' : 'A'))).toBeNull();
    expect(await t.engine.authenticate('Bearer nonsense')).toBeNull();
    const owner = { kind: 'owner', email: 'owner@acme.test', apiKeyId: null } as const;
    const second = await t.engine.createApiKey(account.id, { name: 'ci' }, owner);
    await t.engine.revokeApiKey(account.id, apiKey.id, owner);
    expect(await t.engine.authenticate(apiKey.key)).toBeNull();
    expect(await t.engine.authenticate(second.key)).not.toBeNull();
    expect(await codeOf(t.engine.revokeApiKey(account.id, apiKey.id, owner))).toBe('not_found');
  });

  it('API keys are the owner\'s: a member neither creates nor revokes one, and each key says who created it', async () => {
    const { account, apiKey } = await t.engine.createAccount({ name: 'Acme', ownerEmail: 'owner@acme.test' });
    const member = { kind: 'member', email: 'dev@acme.test', apiKeyId: null } as const;
    expect(await codeOf(t.engine.createApiKey(account.id, { name: 'mine' }, member))).toBe('forbidden');
    expect(await codeOf(t.engine.revokeApiKey(account.id, apiKey.id, member))).toBe('forbidden');
    expect(await t.engine.authenticate(apiKey.key)).not.toBeNull();
    const byKey = await t.engine.createApiKey(account.id, { name: 'ci' }, { kind: 'api_key', email: null, apiKeyId: apiKey.id });
    const listed = (await t.engine.listApiKeys(account.id)).data;
    expect(listed.find((k) => k.id === apiKey.id)!.createdBy).toEqual({ kind: 'operator', email: null, apiKeyId: null });
    expect(listed.find((k) => k.id === byKey.id)!.createdBy).toEqual({ kind: 'api_key', email: null, apiKeyId: apiKey.id });
  });

  it('updates the account sender details, locale and customer portal, validating them', async () => {
    const { account } = await t.engine.createAccount({ name: 'Acme', ownerEmail: 'owner@acme.test' });
    const updated = await t.engine.updateAccount(account.id, {
      name: 'Acme Inc',
      senderName: 'Acme Sales',
      senderEmail: 'sales@acme.test',
      replyTo: '',
      defaultLocale: 'fr',
      customerPortal: { mode: 'custom', url: 'https://portal.acme.test/licenses' },
    });
    expect(updated).toMatchObject({
      name: 'Acme Inc', senderName: 'Acme Sales', senderEmail: 'sales@acme.test', replyTo: null, defaultLocale: 'fr',
      customerPortal: { mode: 'custom', url: 'https://portal.acme.test/licenses' }, portalUrl: 'https://portal.acme.test/licenses',
    });
    for (const patch of [{ defaultLocale: 'de' }, { customerPortal: { mode: 'custom', url: 'http://insecure.test' } }, { customerPortal: { mode: 'keyrail' } }, { senderEmail: 'nope' }]) {
      expect(await codeOf(t.engine.updateAccount(account.id, patch)), JSON.stringify(patch)).toBe('invalid_request');
    }
  });
});

describe('service plans and usage', () => {
  it('reports usage: usable licenses against the license limit, products against the product limit', async () => {
    const c = await createCatalog(t);
    await t.engine.createLicense(c.account.id, { plan: c.plans.pro.id, email: 'a@example.test', paidUntil: '2031-01-01T00:00:00Z' });
    const { license } = await t.engine.createLicense(c.account.id, { plan: c.plans.lifetime.id, email: 'b@example.test' });
    const { license: gone } = await t.engine.createLicense(c.account.id, { plan: c.plans.lifetime.id, email: 'c@example.test' });
    await t.engine.revokeLicense(c.account.id, gone.id);
    expect(await t.engine.getUsage(c.account.id)).toEqual({ plan: 'pro', activeLicenses: 2, licenseLimit: 10_000, products: 1, productLimit: 10, overLimit: false });
    await t.engine.suspendLicense(c.account.id, license.id);
    expect((await t.engine.getUsage(c.account.id)).activeLicenses).toBe(1);
  });

  it('a host table overrides the defaults; over the license limit is reported, not refused; plan changes are audited', async () => {
    t = createTestEngine({ servicePlans: { tiny: { productLimit: 1, licenseLimit: 1, keyEmailsPerHour: 1 }, big: { productLimit: null, licenseLimit: null, keyEmailsPerHour: null } } });
    expect(await codeOf(t.engine.createAccount({ name: 'A', ownerEmail: 'a@example.test' }))).toBe('invalid_request');
    const { account } = await t.engine.createAccount({ name: 'A', ownerEmail: 'a@example.test', servicePlan: 'tiny' });
    const product = await t.engine.createProduct(account.id, { name: 'P', keyPrefix: 'P-' });
    const plan = await t.engine.createPlan(account.id, product.id, { code: 'life', kind: 'perpetual' });
    await t.engine.createLicense(account.id, { plan: plan.id, email: 'x@example.test' });
    await t.engine.createLicense(account.id, { plan: plan.id, email: 'y@example.test' });
    expect(await t.engine.getUsage(account.id)).toEqual({ plan: 'tiny', activeLicenses: 2, licenseLimit: 1, products: 1, productLimit: 1, overLimit: true });
    await t.engine.changeServicePlan(account.id, 'big');
    expect(await t.engine.getUsage(account.id)).toMatchObject({ licenseLimit: null, productLimit: null, overLimit: false });
    const [event] = (await t.engine.listEvents(account.id)).data;
    expect(event).toMatchObject({ type: 'account.plan_changed', license: null, data: { from: 'tiny', to: 'big' } });
    expect((await t.engine.getBilling(account.id)).plan).toBe('big');
  });
});

describe('account closure', () => {
  async function closedWithLicense() {
    const c = await createCatalog(t);
    const { license } = await t.engine.createLicense(c.account.id, { plan: c.plans.pro.id, email: 'a@example.test', paidUntil: '2031-01-01T00:00:00Z' });
    await t.engine.activate({ product: c.product.id, key: license.key, fingerprint: fingerprint(1) });
    await t.engine.closeAccount(c.account.id);
    return { c, license };
  }

  it('revokes API keys at once and refuses new activations with account_closed', async () => {
    const { c, license } = await closedWithLicense();
    expect(await t.engine.authenticate(c.apiKey.key)).toBeNull();
    expect(await codeOf(t.engine.activate({ product: c.product.id, key: license.key, fingerprint: fingerprint(2) }))).toBe('account_closed');
    expect((await t.engine.getBilling(c.account.id)).status).toBe('canceled');
  });

  it('already activated machines keep validating for 30 days after closure; then the data counts as deleted (unknown_product)', async () => {
    const { c, license } = await closedWithLicense();
    const args = { product: c.product.id, key: license.key, fingerprint: fingerprint(1) };
    t.clock.advance(30 * DAY - 1000);
    await t.engine.validate(args);
    await t.engine.activate(args);
    t.clock.advance(1000);
    expect(await codeOf(t.engine.validate(args))).toBe('unknown_product');
    expect(await codeOf(t.engine.activate(args))).toBe('unknown_product');
  });

  it('payments are still applied, but no key is e-mailed', async () => {
    const { c } = await closedWithLicense();
    const created = await t.engine.applyPaymentCommand(c.providerB.id, paid({ occurredAt: '2030-01-15T09:00:00Z', paidUntil: '2030-02-15T09:00:00Z' }));
    expect(created).toMatchObject({ result: 'processed', keyEmail: null });
    await t.engine.applyPaymentCommand(c.providerB.id, paid({ occurredAt: '2030-02-15T09:00:00Z', paidUntil: '2030-03-15T09:00:00Z' }));
    expect((await t.engine.getLicense(c.account.id, created.licenseId!)).paidUntil).toBe('2030-03-15T09:00:00Z');
    const manual = await t.engine.createLicense(c.account.id, { plan: c.plans.lifetime.id, email: 'm@example.test', sendEmail: true });
    expect(manual.sendKeyEmail).toBe(false);
    expect(await codeOf(t.engine.reserveKeyEmail(c.account.id, created.licenseId!))).toBe('account_closed');
  });

  it('reopens within 30 days (API keys stay revoked), not after', async () => {
    const { c, license } = await closedWithLicense();
    t.clock.advance(10 * DAY);
    const reopened = await t.engine.reopenAccount(c.account.id);
    expect([reopened.status, reopened.closedAt]).toEqual(['open', null]);
    expect(await t.engine.authenticate(c.apiKey.key)).toBeNull();
    await t.engine.activate({ product: c.product.id, key: license.key, fingerprint: fingerprint(2) });
    await t.engine.closeAccount(c.account.id);
    t.clock.advance(30 * DAY);
    expect(await codeOf(t.engine.reopenAccount(c.account.id))).toBe('conflict');
  });
});
