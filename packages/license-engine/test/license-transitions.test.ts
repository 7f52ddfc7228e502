import { beforeEach, describe, expect, it } from 'vitest';
import type { LicenseStatus } from '@svc-licensing/cert-format';
import type { Catalog, TestEngine } from './fixtures.js';
import { DAY, START, changed, codeOf, command, createCatalog, createTestEngine, paid, refusedCode } from './fixtures.js';

let t: TestEngine;
let c: Catalog;

beforeEach(async () => {
  t = createTestEngine();
  c = await createCatalog(t);
});

const createSubscription = (over: Record<string, unknown> = {}) =>
  t.engine.createLicense(c.account.id, { plan: c.plans.pro.id, email: 'ann@example.test', paidUntil: '2030-02-15T10:00:00Z', ...over });

/** A provider-created subscription license (provider_b), then moved to `status` by a status event. */
async function providerLicense(status: LicenseStatus | null = null) {
  const first = await t.engine.applyPaymentCommand(c.providerB.id, paid({ occurredAt: '2030-01-15T09:00:00Z', paidUntil: '2030-02-15T09:00:00Z' }));
  const id = first.licenseId!;
  if (status === 'revoked') await t.engine.revokeLicense(c.account.id, id);
  else if (status === 'refunded') await t.engine.applyPaymentCommand(c.providerB.id, command('refunded', { subscriptionId: 'sub_1', orderId: null, full: true }));
  else if (status !== null && status !== 'active') {
    await t.engine.applyPaymentCommand(c.providerB.id, changed({ status: status as 'past_due', occurredAt: '2030-01-15T09:30:00Z' }));
  }
  return id;
}

const statusOf = async (id: string) => (await t.engine.getLicense(c.account.id, id)).status;

describe('manual creation (POST /licenses)', () => {
  it('subscription plan with paidUntil: active, key returned in clear, activations empty, license.created logged', async () => {
    const { license, sendKeyEmail } = await createSubscription();
    expect(license.status).toBe('active');
    expect(license.paidUntil).toBe('2030-02-15T10:00:00Z');
    expect(license.key).toMatch(/^ACME-[2-9A-HJKMNP-TV-Z]{5}(-[2-9A-HJKMNP-TV-Z]{5}){3}$/);
    expect(license.activations).toEqual([]);
    expect(license.provider).toBeNull();
    expect(sendKeyEmail).toBe(false);
    const events = await t.engine.listEvents(c.account.id, { license: license.id });
    expect(events.data.map((e) => e.type)).toEqual(['license.created']);
  });

  it('subscription plan without paidUntil is invalid_request and creates nothing', async () => {
    expect(await codeOf(t.engine.createLicense(c.account.id, { plan: c.plans.pro.id, email: 'ann@example.test' }))).toBe('invalid_request');
    expect((await t.engine.listLicenses(c.account.id)).data).toEqual([]);
    expect((await t.engine.listCustomers(c.account.id)).data).toEqual([]);
  });

  it('perpetual plan: perpetual, no paid period, no validUntil', async () => {
    const { license } = await t.engine.createLicense(c.account.id, { plan: 'lifetime', product: c.product.id, email: 'ann@example.test' });
    expect([license.status, license.paidUntil, license.validUntil]).toEqual(['perpetual', null, null]);
  });

  it('trial plan: active, paid until now + trialDays (14 by default)', async () => {
    const { license } = await t.engine.createLicense(c.account.id, { plan: c.plans.trial.id, email: 'ann@example.test' });
    expect(license.status).toBe('active');
    expect(license.paidUntil).toBe(new Date(Date.parse(START) + 14 * DAY).toISOString().replace('.000Z', 'Z'));
  });

  it('sendEmail true asks the host to e-mail the key', async () => {
    const { sendKeyEmail } = await createSubscription({ sendEmail: true });
    expect(sendKeyEmail).toBe(true);
  });
});

describe('vendor actions', () => {
  const others: LicenseStatus[] = ['active', 'past_due', 'canceled', 'expired', 'refunded'];

  it.each(others)('suspend from %s: suspended, and reinstate returns to %s', async (from) => {
    const id = await providerLicense(from);
    expect(await statusOf(id)).toBe(from);
    expect((await t.engine.suspendLicense(c.account.id, id)).status).toBe('suspended');
    expect((await t.engine.reinstateLicense(c.account.id, id)).status).toBe(from === 'refunded' ? 'active' : from);
  });

  it('suspend and reinstate a perpetual license', async () => {
    const { license } = await t.engine.createLicense(c.account.id, { plan: c.plans.lifetime.id, email: 'ann@example.test' });
    expect((await t.engine.suspendLicense(c.account.id, license.id)).status).toBe('suspended');
    expect((await t.engine.reinstateLicense(c.account.id, license.id)).status).toBe('perpetual');
  });

  it('reinstate of a refunded license returns to the status before the refund', async () => {
    const id = await providerLicense('past_due');
    await t.engine.applyPaymentCommand(c.providerB.id, command('refunded', { subscriptionId: 'sub_1', orderId: null, full: true }));
    expect(await statusOf(id)).toBe('refunded');
    expect((await t.engine.reinstateLicense(c.account.id, id)).status).toBe('past_due');
  });

  it('suspending a suspended license changes nothing; suspend then refund then reinstate returns to the first status', async () => {
    const id = await providerLicense('canceled');
    await t.engine.suspendLicense(c.account.id, id);
    await t.engine.suspendLicense(c.account.id, id);
    const changes = (await t.engine.listEvents(c.account.id, { license: id })).data.filter((e) => e.type === 'license.status_changed');
    expect(changes.filter((e) => e.data.to === 'suspended')).toHaveLength(1);
    await t.engine.applyPaymentCommand(c.providerB.id, command('refunded', { subscriptionId: 'sub_1', orderId: null, full: true }));
    expect(await statusOf(id)).toBe('refunded');
    expect((await t.engine.reinstateLicense(c.account.id, id)).status).toBe('canceled');
  });

  it.each(['active', 'past_due', 'canceled', 'expired'] as const)('reinstate from %s is conflict', async (from) => {
    const id = await providerLicense(from);
    expect(await codeOf(t.engine.reinstateLicense(c.account.id, id))).toBe('conflict');
    expect(await statusOf(id)).toBe(from);
  });

  it.each(['active', 'suspended', 'refunded', 'perpetual'] as const)('revoke from %s: revoked', async (from) => {
    let id: string;
    if (from === 'perpetual') id = (await t.engine.createLicense(c.account.id, { plan: c.plans.lifetime.id, email: 'p@example.test' })).license.id;
    else id = await providerLicense(from === 'suspended' ? null : from);
    if (from === 'suspended') await t.engine.suspendLicense(c.account.id, id);
    expect((await t.engine.revokeLicense(c.account.id, id)).status).toBe('revoked');
  });

  it('revoked is final: suspend, reinstate, revoke, update and a payment are conflict; status events leave it revoked', async () => {
    const id = await providerLicense('revoked');
    for (const op of [
      t.engine.suspendLicense(c.account.id, id),
      t.engine.reinstateLicense(c.account.id, id),
      t.engine.revokeLicense(c.account.id, id),
      t.engine.updateLicense(c.account.id, id, { seats: 3 }),
    ]) {
      expect(await codeOf(op)).toBe('conflict');
    }
    expect(await refusedCode(t.engine.applyPaymentCommand(c.providerB.id, paid({ occurredAt: '2030-01-16T00:00:00Z', paidUntil: '2030-03-16T00:00:00Z' })))).toBe('conflict');
    const event = await t.engine.applyPaymentCommand(c.providerB.id, changed({ status: 'active', occurredAt: '2030-01-17T00:00:00Z' }));
    expect(event.result).toBe('ignored');
    const refund = await t.engine.applyPaymentCommand(c.providerB.id, command('refunded', { subscriptionId: 'sub_1', orderId: null, full: true }));
    expect(refund.result).toBe('ignored');
    const license = await t.engine.getLicense(c.account.id, id);
    expect([license.status, license.paidUntil]).toEqual(['revoked', '2030-02-15T09:00:00Z']);
  });
});

describe('provider-driven transitions', () => {
  it('purchase without subscription: perpetual license created, key e-mail requested', async () => {
    const result = await t.engine.applyPaymentCommand(
      c.providerA.id,
      command('purchase_completed', {
        provider: 'provider_a',
        eventType: 'transaction.completed',
        customer: { providerCustomerId: null, email: 'Buyer@Example.test', name: 'Buyer' },
        orderId: 'txn_1',
        priceId: 'pri_life',
        quantity: 2,
      }),
    );
    expect(result).toMatchObject({ result: 'processed', keyEmail: { licenseId: result.licenseId } });
    const license = await t.engine.getLicense(c.account.id, result.licenseId!);
    expect([license.status, license.paidUntil, license.seats, license.provider, license.plan]).toEqual(['perpetual', null, 2, 'provider_a', 'lifetime']);
    expect(license.customer.email).toBe('buyer@example.test');
  });

  it('subscription payment with a known provider_a customer: active, paidUntil = period end, seats = quantity; unknown customer is customer_unknown', async () => {
    const pay = paid({
      provider: 'provider_a',
      eventType: 'transaction.completed',
      occurredAt: '2030-01-15T09:00:00Z',
      paidUntil: '2030-02-15T09:00:00Z',
      customer: { providerCustomerId: 'ctm_1', email: null, name: null },
      priceId: 'pri_pro',
      quantity: 3,
    });
    expect(await refusedCode(t.engine.applyPaymentCommand(c.providerA.id, pay))).toBe('customer_unknown');
    expect((await t.engine.listLicenses(c.account.id)).data).toEqual([]);
    await t.engine.applyPaymentCommand(
      c.providerA.id,
      command('customer_upserted', { provider: 'provider_a', eventType: 'customer.created', customer: { providerCustomerId: 'ctm_1', email: 'ctm@example.test', name: 'Cat' } }),
    );
    const result = await t.engine.applyPaymentCommand(c.providerA.id, pay);
    const license = await t.engine.getLicense(c.account.id, result.licenseId!);
    expect([license.status, license.paidUntil, license.seats, license.customer.email, license.customer.name]).toEqual([
      'active', '2030-02-15T09:00:00Z', 3, 'ctm@example.test', 'Cat',
    ]);
    expect(license.activationLimit).toBe(6);
  });

  it('a payment for an existing license renews it and returns it to active', async () => {
    const id = await providerLicense('past_due');
    await t.engine.applyPaymentCommand(c.providerB.id, paid({ occurredAt: '2030-02-15T09:00:00Z', paidUntil: '2030-03-15T09:00:00Z', quantity: 2 }));
    const license = await t.engine.getLicense(c.account.id, id);
    expect([license.status, license.paidUntil, license.seats]).toEqual(['active', '2030-03-15T09:00:00Z', 2]);
  });

  it.each([
    ['active', 'past_due'],
    ['past_due', 'canceled'],
    ['canceled', 'active'],
    ['suspended', 'active'],
    ['expired', 'active'],
    ['active', 'suspended'],
    ['active', 'expired'],
  ] as const)('status event %s → %s; dates unchanged', async (from, to) => {
    const id = await providerLicense(from === 'active' ? null : from);
    await t.engine.applyPaymentCommand(c.providerB.id, changed({ status: to, occurredAt: '2030-01-20T00:00:00Z' }));
    const license = await t.engine.getLicense(c.account.id, id);
    expect([license.status, license.paidUntil]).toEqual([to, '2030-02-15T09:00:00Z']);
  });

  it('a full refund makes the license refunded; a partial refund changes nothing', async () => {
    const id = await providerLicense();
    const partial = await t.engine.applyPaymentCommand(c.providerB.id, command('refunded', { subscriptionId: 'sub_1', orderId: null, full: false }));
    expect([partial.result, await statusOf(id)]).toEqual(['ignored', 'active']);
    await t.engine.applyPaymentCommand(c.providerB.id, command('refunded', { subscriptionId: 'sub_1', orderId: null, full: true }));
    expect(await statusOf(id)).toBe('refunded');
  });

  it('a purchase whose price maps to a subscription plan is ignored: the subscription events handle it', async () => {
    const result = await t.engine.applyPaymentCommand(
      c.providerA.id,
      command('purchase_completed', { provider: 'provider_a', customer: { providerCustomerId: null, email: 'b@example.test', name: null }, orderId: 'txn_2', priceId: 'pri_pro', quantity: 1 }),
    );
    expect(result).toMatchObject({ result: 'ignored', licenseId: null, keyEmail: null });
    expect((await t.engine.listLicenses(c.account.id)).data).toEqual([]);
  });

  it('a refund of a one-time purchase is found by its order', async () => {
    const bought = await t.engine.applyPaymentCommand(
      c.providerA.id,
      command('purchase_completed', { provider: 'provider_a', customer: { providerCustomerId: null, email: 'b@example.test', name: null }, orderId: 'txn_9', priceId: 'pri_life', quantity: 1 }),
    );
    await t.engine.applyPaymentCommand(c.providerA.id, command('refunded', { provider: 'provider_a', subscriptionId: null, orderId: 'txn_9', full: true }));
    expect(await statusOf(bought.licenseId!)).toBe('refunded');
    expect((await t.engine.reinstateLicense(c.account.id, bought.licenseId!)).status).toBe('perpetual');
  });

  it('a chargeback revokes the license', async () => {
    const id = await providerLicense('past_due');
    const result = await t.engine.applyPaymentCommand(c.providerB.id, command('chargeback', { subscriptionId: 'sub_1', orderId: null }));
    expect([result.result, await statusOf(id)]).toEqual(['processed', 'revoked']);
  });

  it('status changes record license.status_changed with from, to and the provider as source', async () => {
    const id = await providerLicense();
    await t.engine.applyPaymentCommand(c.providerB.id, changed({ status: 'past_due', occurredAt: '2030-01-20T00:00:00Z' }));
    const [latest] = (await t.engine.listEvents(c.account.id, { license: id })).data.filter((e) => e.type === 'license.status_changed');
    expect(latest?.data).toEqual({ from: 'active', to: 'past_due', source: 'provider_b' });
  });
});
