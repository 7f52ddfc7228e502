import { beforeEach, describe, expect, it } from 'vitest';
import type { TestEngine } from './fixtures.js';
import { START, codeOf, createTestEngine } from './fixtures.js';

let t: TestEngine;
let accountId: string;

beforeEach(async () => {
  t = createTestEngine();
  accountId = (await t.engine.createAccount({ name: 'Acme', ownerEmail: 'owner@acme.test', servicePlan: 'pro' })).account.id;
});

describe('products', () => {
  it('returns exactly the spec fields, with defaults for graceDays and offlineDays', async () => {
    const product = await t.engine.createProduct(accountId, { name: 'Editor', keyPrefix: 'ed-' });
    expect(product).toEqual({ id: expect.stringMatching(/^prd_[0-9a-z]{26}$/), name: 'Editor', keyPrefix: 'ED-', graceDays: 3, offlineDays: 7, createdAt: START });
  });

  it('validates fields: name and keyPrefix required, offlineDays 1..365, graceDays 0..365', async () => {
    for (const input of [
      { keyPrefix: 'A-' },
      { name: 'x' },
      { name: 'x', keyPrefix: 'A B' },
      { name: 'x', keyPrefix: 'A-', offlineDays: 0 },
      { name: 'x', keyPrefix: 'A-', offlineDays: 366 },
      { name: 'x', keyPrefix: 'A-', graceDays: -1 },
      { name: 'x', keyPrefix: 'A-', graceDays: 1.5 },
    ]) {
      expect(await codeOf(t.engine.createProduct(accountId, input as never)), JSON.stringify(input)).toBe('invalid_request');
    }
    expect((await t.engine.listProducts(accountId)).data).toEqual([]);
  });

  it('updates any of name, keyPrefix, graceDays, offlineDays; new keys use the new prefix', async () => {
    const product = await t.engine.createProduct(accountId, { name: 'Editor', keyPrefix: 'ED-' });
    const plan = await t.engine.createPlan(accountId, product.id, { code: 'life', kind: 'perpetual' });
    const updated = await t.engine.updateProduct(accountId, product.id, { name: 'Editor 2', keyPrefix: 'ED2-', graceDays: 0, offlineDays: 30 });
    expect(updated).toMatchObject({ name: 'Editor 2', keyPrefix: 'ED2-', graceDays: 0, offlineDays: 30 });
    expect(await t.engine.getProduct(accountId, product.id)).toEqual(updated);
    const { license } = await t.engine.createLicense(accountId, { plan: plan.id, email: 'a@example.test' });
    expect(license.key.startsWith('ED2-')).toBe(true);
  });

  it('scopes products to the account: another account gets not_found', async () => {
    const product = await t.engine.createProduct(accountId, { name: 'Editor', keyPrefix: 'ED-' });
    const other = (await t.engine.createAccount({ name: 'Other', ownerEmail: 'o@example.test' })).account.id;
    expect(await codeOf(t.engine.getProduct(other, product.id))).toBe('not_found');
    expect(await codeOf(t.engine.updateProduct(other, product.id, { name: 'x' }))).toBe('not_found');
    expect((await t.engine.listProducts(other)).data).toEqual([]);
  });

  it('creating a product beyond the service plan is plan_limit', async () => {
    const free = (await t.engine.createAccount({ name: 'Free', ownerEmail: 'f@example.test' })).account.id;
    await t.engine.createProduct(free, { name: 'One', keyPrefix: 'ONE-' });
    expect(await codeOf(t.engine.createProduct(free, { name: 'Two', keyPrefix: 'TWO-' }))).toBe('plan_limit');
    expect((await t.engine.listProducts(free)).data).toHaveLength(1);
  });
});

describe('plans', () => {
  let productId: string;
  beforeEach(async () => {
    productId = (await t.engine.createProduct(accountId, { name: 'Editor', keyPrefix: 'ED-' })).id;
  });

  it('applies the spec defaults: name = code, maxActivations 1, trialDays 14 for a trial plan, offlineDays null, machine seats', async () => {
    const trial = await t.engine.createPlan(accountId, productId, { code: 'trial', kind: 'trial' });
    expect(trial).toEqual({
      id: expect.stringMatching(/^pln_/),
      product: productId,
      code: 'trial',
      name: 'trial',
      kind: 'trial',
      maxActivations: 1,
      entitlements: [],
      maxMajor: null,
      trialDays: 14,
      offlineDays: null,
      seatMode: 'machine',
      leaseSeconds: null,
      maxBorrowDays: null,
      maxBorrowedSeats: null,
      createdAt: START,
      updatedAt: START,
    });
    const sub = await t.engine.createPlan(accountId, productId, { code: 'pro', kind: 'subscription', name: 'Pro', entitlements: ['a', 'a', 'b'], maxMajor: 2, offlineDays: 30 });
    expect(sub).toMatchObject({ name: 'Pro', entitlements: ['a', 'b'], maxMajor: 2, offlineDays: 30, trialDays: 0 });
  });

  it('a duplicate code on the same product is conflict; the same code on another product is fine', async () => {
    await t.engine.createPlan(accountId, productId, { code: 'pro', kind: 'subscription' });
    expect(await codeOf(t.engine.createPlan(accountId, productId, { code: 'pro', kind: 'perpetual' }))).toBe('conflict');
    const other = await t.engine.createProduct(accountId, { name: 'Other', keyPrefix: 'OT-' });
    await t.engine.createPlan(accountId, other.id, { code: 'pro', kind: 'subscription' });
  });

  it('rejects a code that is not a lowercase slug, a missing kind and offlineDays outside 1..365', async () => {
    for (const input of [
      { code: 'Pro', kind: 'subscription' },
      { code: 'pro plan', kind: 'subscription' },
      { code: '', kind: 'subscription' },
      { code: 'pro' },
      { code: 'pro', kind: 'lifetime' },
      { code: 'pro', kind: 'subscription', offlineDays: 0 },
      { code: 'pro', kind: 'subscription', offlineDays: 366 },
      { code: 'pro', kind: 'subscription', maxActivations: 0 },
      { code: 'pro', kind: 'subscription', entitlements: 'all' },
    ]) {
      expect(await codeOf(t.engine.createPlan(accountId, productId, input as never)), JSON.stringify(input)).toBe('invalid_request');
    }
  });

  it('updates the mutable fields; null offlineDays clears the override; code and kind cannot change', async () => {
    const plan = await t.engine.createPlan(accountId, productId, { code: 'pro', kind: 'subscription', offlineDays: 10 });
    t.clock.advance(1000);
    const updated = await t.engine.updatePlan(accountId, plan.id, { name: 'Pro+', maxActivations: 3, entitlements: ['x'], maxMajor: 4, trialDays: 7, offlineDays: null });
    expect(updated).toMatchObject({ code: 'pro', kind: 'subscription', name: 'Pro+', maxActivations: 3, entitlements: ['x'], maxMajor: 4, trialDays: 7, offlineDays: null, updatedAt: '2030-01-15T10:00:01Z' });
    expect(await codeOf(t.engine.updatePlan(accountId, plan.id, { code: 'other' } as never))).toBe('invalid_request');
    expect(await codeOf(t.engine.updatePlan(accountId, plan.id, { kind: 'trial' } as never))).toBe('invalid_request');
    expect(await t.engine.getPlan(accountId, plan.id)).toEqual(updated);
  });

  it('lists newest first, and scopes plans to the account', async () => {
    const a = await t.engine.createPlan(accountId, productId, { code: 'a', kind: 'subscription' });
    const b = await t.engine.createPlan(accountId, productId, { code: 'b', kind: 'subscription' });
    expect((await t.engine.listPlans(accountId, productId)).data.map((p) => p.id)).toEqual([b.id, a.id]);
    const other = (await t.engine.createAccount({ name: 'Other', ownerEmail: 'o@example.test' })).account.id;
    expect(await codeOf(t.engine.getPlan(other, a.id))).toBe('not_found');
    expect(await codeOf(t.engine.listPlans(other, productId))).toBe('not_found');
  });
});
