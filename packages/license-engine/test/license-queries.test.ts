import { beforeEach, describe, expect, it } from 'vitest';
import type { Catalog, TestEngine } from './fixtures.js';
import { START, codeOf, command, createCatalog, createTestEngine } from './fixtures.js';

let t: TestEngine;
let c: Catalog;

beforeEach(async () => {
  t = createTestEngine();
  c = await createCatalog(t);
});

const create = (email: string, over: Record<string, unknown> = {}) =>
  t.engine.createLicense(c.account.id, { plan: c.plans.pro.id, email, paidUntil: '2031-01-01T00:00:00Z', ...over });

describe('license views', () => {
  it('a list item has exactly the spec fields; create and detail add key and activations', async () => {
    const { license } = await create('Ann@Example.test', { name: 'Ann Lee', seats: 2 });
    const [item] = (await t.engine.listLicenses(c.account.id)).data;
    expect(item).toEqual({
      id: license.id,
      product: c.product.id,
      plan: 'pro',
      planId: c.plans.pro.id,
      planName: 'pro',
      customer: { id: expect.stringMatching(/^cus_/), email: 'ann@example.test', name: 'Ann Lee' },
      status: 'active',
      seats: 2,
      maxActivations: null,
      activationLimit: 4,
      maxMajor: 3,
      entitlements: ['export', 'sync'],
      paidUntil: '2031-01-01T00:00:00Z',
      validUntil: '2031-01-04T00:00:00Z',
      provider: null,
      activationCount: 0,
      seatMode: 'machine',
      liveLeases: null,
      borrowedLeases: null,
      createdAt: START,
      updatedAt: START,
    });
    expect(license).toEqual({ ...item, key: license.key, activations: [] });
    expect(await t.engine.getLicense(c.account.id, license.id)).toEqual(license);
  });

  it('the key is stored as SHA-256 and ciphertext only, yet the detail shows it', async () => {
    const { license } = await create('a@example.test');
    const record = await t.store.transaction((tx) => tx.get('licenses', license.id));
    expect(JSON.stringify(record)).not.toContain(license.key);
    expect(record?.keyHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('the plan name is read live; the license is scoped to its account', async () => {
    const { license } = await create('a@example.test');
    await t.engine.updatePlan(c.account.id, c.plans.pro.id, { name: 'Professional' });
    expect((await t.engine.getLicense(c.account.id, license.id)).planName).toBe('Professional');
    const other = (await t.engine.createAccount({ name: 'O', ownerEmail: 'o@example.test' })).account.id;
    expect(await codeOf(t.engine.getLicense(other, license.id))).toBe('not_found');
    expect(await codeOf(t.engine.suspendLicense(other, license.id))).toBe('not_found');
    expect((await t.engine.listLicenses(other)).data).toEqual([]);
  });

  it('a plan code with product, or a plan ID, selects the plan; another account\'s plan is not_found', async () => {
    const { license } = await t.engine.createLicense(c.account.id, { plan: 'team', product: c.product.id, email: 'a@example.test', paidUntil: '2031-01-01T00:00:00Z' });
    expect(license.plan).toBe('team');
    expect(await codeOf(t.engine.createLicense(c.account.id, { plan: 'team', email: 'a@example.test' }))).toBe('invalid_request');
    expect(await codeOf(t.engine.createLicense(c.account.id, { plan: 'nope', product: c.product.id, email: 'a@example.test' }))).toBe('not_found');
    const other = (await t.engine.createAccount({ name: 'O', ownerEmail: 'o@example.test' })).account.id;
    expect(await codeOf(t.engine.createLicense(other, { plan: c.plans.pro.id, email: 'a@example.test', paidUntil: '2031-01-01T00:00:00Z' }))).toBe('not_found');
  });

  it('rejects bad create input: e-mail, seats, locale, paidUntil on a perpetual plan', async () => {
    for (const input of [
      { plan: c.plans.pro.id, email: 'not-an-email', paidUntil: '2031-01-01T00:00:00Z' },
      { plan: c.plans.pro.id, email: 'a@example.test', paidUntil: '2031-01-01T00:00:00Z', seats: 0 },
      { plan: c.plans.pro.id, email: 'a@example.test', paidUntil: '2031-01-01T00:00:00Z', locale: 'de' },
      { plan: c.plans.pro.id, email: 'a@example.test', paidUntil: 'soon' },
      { plan: c.plans.lifetime.id, email: 'a@example.test', paidUntil: '2031-01-01T00:00:00Z' },
      // Not real instants (Date.parse would roll them over), and a validUntil past the four-digit years.
      { plan: c.plans.pro.id, email: 'a@example.test', paidUntil: '2032-02-30T00:00:00Z' },
      { plan: c.plans.pro.id, email: 'a@example.test', paidUntil: '2031-02-29T00:00:00Z' },
      { plan: c.plans.pro.id, email: 'a@example.test', paidUntil: '2031-01-01T24:00:00Z' },
      { plan: c.plans.pro.id, email: 'a@example.test', paidUntil: '2031-01-01T00:00:00+25:00' },
      { plan: c.plans.pro.id, email: 'a@example.test', paidUntil: '9999-12-31T00:00:00Z' },
    ]) {
      expect(await codeOf(t.engine.createLicense(c.account.id, input as never)), JSON.stringify(input)).toBe('invalid_request');
    }
    expect((await t.engine.listLicenses(c.account.id)).data).toEqual([]);
  });
});

describe('license list filters and paging', () => {
  it('filters by product, status, exact e-mail, part of e-mail or name, complete key (any case, spaces)', async () => {
    const a = (await create('alice@shop.test', { name: 'Alice Martin' })).license;
    const b = (await create('bob@martinez.test', { name: 'Bob' })).license;
    const other = await t.engine.createProduct(c.account.id, { name: 'Other', keyPrefix: 'OT-' });
    const otherPlan = await t.engine.createPlan(c.account.id, other.id, { code: 'life', kind: 'perpetual' });
    const d = (await t.engine.createLicense(c.account.id, { plan: otherPlan.id, email: 'dan@shop.test' })).license;
    await t.engine.suspendLicense(c.account.id, b.id);
    const ids = async (filters: Record<string, string>) => (await t.engine.listLicenses(c.account.id, filters)).data.map((l) => l.id);
    expect(await ids({})).toEqual([d.id, b.id, a.id]);
    expect(await ids({ product: c.product.id })).toEqual([b.id, a.id]);
    expect(await ids({ status: 'suspended' })).toEqual([b.id]);
    expect(await ids({ email: 'ALICE@shop.test' })).toEqual([a.id]);
    expect(await ids({ email: 'alice' })).toEqual([]);
    expect(await ids({ q: 'martin' })).toEqual([b.id, a.id]);
    expect(await ids({ q: 'shop', product: c.product.id })).toEqual([a.id]);
    expect(await ids({ key: ` ${a.key.toLowerCase()} ` })).toEqual([a.id]);
    expect(await codeOf(t.engine.listLicenses(c.account.id, { status: 'gone' }))).toBe('invalid_request');
    expect(await codeOf(t.engine.listLicenses(c.account.id, { cursor: 'not a cursor!' }))).toBe('invalid_request');
    // The store's own cursor form (base64url of an ID) is not a cursor of the engine.
    expect(await codeOf(t.engine.listLicenses(c.account.id, { cursor: Buffer.from(a.id).toString('base64url') }))).toBe('invalid_request');
  });

  it('pages 50 per page, newest first, with no key in list items', async () => {
    const created: string[] = [];
    for (let i = 0; i < 51; i++) created.push((await create(`u${i}@example.test`)).license.id);
    const first = await t.engine.listLicenses(c.account.id);
    expect(first.data).toHaveLength(50);
    expect(first.data[0]!.id).toBe(created[50]);
    expect(first.data.some((l) => 'key' in l || 'activations' in l)).toBe(false);
    const second = await t.engine.listLicenses(c.account.id, { cursor: first.nextCursor });
    expect([second.data.map((l) => l.id), second.nextCursor]).toEqual([[created[0]], null]);
    // Bound to the list, its filters and the account.
    for (const other of [
      t.engine.listLicenses(c.account.id, { cursor: first.nextCursor, q: 'u1' }),
      t.engine.listCustomers(c.account.id, { cursor: first.nextCursor }),
      t.engine.listLicenses((await t.engine.createAccount({ name: 'Other', ownerEmail: 'o@other.test' })).account.id, { cursor: first.nextCursor }),
    ]) expect(await codeOf(other)).toBe('invalid_request');
  });
});

describe('customers', () => {
  it('are matched by e-mail within the account; lists carry licenseCount, the detail their licenses', async () => {
    const first = (await create('Ann@Example.test', { name: 'Ann' })).license;
    const second = (await t.engine.createLicense(c.account.id, { plan: c.plans.lifetime.id, email: 'ann@example.test' })).license;
    expect(second.customer.id).toBe(first.customer.id);
    await create('zed@example.test');
    const list = await t.engine.listCustomers(c.account.id);
    expect(list.data.map((x) => [x.email, x.licenseCount])).toEqual([['zed@example.test', 1], ['ann@example.test', 2]]);
    expect(list.data[1]).toEqual({ id: first.customer.id, email: 'ann@example.test', name: 'Ann', licenseCount: 2 });
    expect((await t.engine.listCustomers(c.account.id, { email: 'ANN@example.test' })).data).toHaveLength(1);
    expect((await t.engine.listCustomers(c.account.id, { q: 'ze' })).data.map((x) => x.email)).toEqual(['zed@example.test']);
    const detail = await t.engine.getCustomer(c.account.id, first.customer.id);
    expect(detail.licenses.map((l) => l.id)).toEqual([second.id, first.id]);
    expect(detail.licenses[0]).not.toHaveProperty('key');
    const other = (await t.engine.createAccount({ name: 'O', ownerEmail: 'o@example.test' })).account.id;
    expect(await codeOf(t.engine.getCustomer(other, first.customer.id))).toBe('not_found');
  });

  it('a provider customer.updated rename reaches the licenses\' customer name', async () => {
    const upsert = (name: string) =>
      t.engine.applyPaymentCommand(
        c.providerA.id,
        command('customer_upserted', { provider: 'provider_a', eventType: 'customer.updated', customer: { providerCustomerId: 'ctm_1', email: 'ada@example.test', name } }),
      );
    await upsert('Ada Buyer');
    const bought = await t.engine.applyPaymentCommand(
      c.providerA.id,
      command('purchase_completed', { provider: 'provider_a', customer: { providerCustomerId: 'ctm_1', email: null, name: null }, orderId: 'txn_1', priceId: 'pri_life', quantity: 1 }),
    );
    expect((await t.engine.getLicense(c.account.id, bought.licenseId!)).customer.name).toBe('Ada Buyer');
    await upsert('Ada B. Lovelace');
    expect((await t.engine.getLicense(c.account.id, bought.licenseId!)).customer.name).toBe('Ada B. Lovelace');
    expect((await t.engine.listLicenses(c.account.id, { q: 'lovelace' })).data).toHaveLength(1);
  });
});

describe('license updates', () => {
  it('PATCH changes paidUntil, seats, maxActivations and maxMajor and logs license.updated', async () => {
    const { license } = await create('a@example.test');
    const updated = await t.engine.updateLicense(c.account.id, license.id, { paidUntil: '2032-01-01T12:30:00.999Z', seats: 3, maxActivations: 10, maxMajor: 9 });
    expect(updated).toMatchObject({ paidUntil: '2032-01-01T12:30:00Z', validUntil: '2032-01-04T12:30:00Z', seats: 3, maxActivations: 10, activationLimit: 10, maxMajor: 9 });
    const [event] = (await t.engine.listEvents(c.account.id, { license: license.id })).data;
    expect(event).toMatchObject({ type: 'license.updated', data: { fields: ['paidUntil', 'seats', 'maxActivations', 'maxMajor'] } });
    expect(await codeOf(t.engine.updateLicense(c.account.id, license.id, { seats: -1 }))).toBe('invalid_request');
  });
});
