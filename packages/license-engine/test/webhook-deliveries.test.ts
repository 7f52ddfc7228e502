import { beforeEach, describe, expect, it } from 'vitest';
import type { Catalog, TestEngine } from './fixtures.js';
import { codeOf, command, createCatalog, createTestEngine, paid, refusedCode } from './fixtures.js';

let t: TestEngine;
let c: Catalog;

beforeEach(async () => {
  t = createTestEngine();
  c = await createCatalog(t);
});

const events = async () => (await t.engine.listEvents(c.account.id)).data;

/** A provider_a subscription payment naming only the provider customer ID (as provider_a sends it). */
const payA = (subscriptionId: string, customer: { providerCustomerId: string; email: string | null; name: string | null }, eventId?: string) =>
  paid({
    provider: 'provider_a',
    eventType: 'transaction.completed',
    subscriptionId,
    occurredAt: '2030-01-15T09:00:00Z',
    paidUntil: '2030-02-15T09:00:00Z',
    priceId: 'pri_pro',
    customer,
    ...(eventId ? { eventId } : {}),
  });

describe('recordWebhookRejected: deliveries whose transaction rolled back are logged too', () => {
  it('writes webhook.received with the delivery data in the integration account, and nothing else', async () => {
    await t.engine.recordWebhookRejected(c.providerA.id, {
      provider: 'provider_a',
      eventType: 'transaction.completed',
      result: 'customer_unknown',
      detail: 'provider customer ctm_1 is not known yet',
    });
    const [event, ...rest] = await events();
    expect(rest).toEqual([]);
    expect(event).toMatchObject({
      type: 'webhook.received',
      license: null,
      data: { provider: 'provider_a', eventType: 'transaction.completed', result: 'customer_unknown', detail: 'provider customer ctm_1 is not known yet' },
    });
    expect((await t.engine.listLicenses(c.account.id)).data).toEqual([]);
  });

  it('does not mark the event processed: the rejected event is applied afresh later', async () => {
    const pay = payA('sub_1', { providerCustomerId: 'ctm_1', email: null, name: null });
    expect(await refusedCode(t.engine.applyPaymentCommand(c.providerA.id, pay))).toBe('customer_unknown');
    await t.engine.recordWebhookRejected(c.providerA.id, { provider: 'provider_a', eventType: pay.eventType, result: 'customer_unknown', detail: 'unknown' });
    await t.engine.applyPaymentCommand(
      c.providerA.id,
      command('customer_upserted', { provider: 'provider_a', eventType: 'customer.created', customer: { providerCustomerId: 'ctm_1', email: 'cat@example.test', name: 'Cat' } }),
    );
    expect((await t.engine.applyPaymentCommand(c.providerA.id, pay)).result).toBe('processed');
    expect((await events()).map((e) => e.data.result).filter(Boolean)).toEqual(['processed', 'processed', 'customer_unknown']);
  });

  it('is a no-op for a deleted or unknown integration', async () => {
    await t.engine.deleteIntegration(c.account.id, c.providerA.id);
    await t.engine.recordWebhookRejected(c.providerA.id, { provider: 'provider_a', eventType: 'x', result: 'error', detail: '' });
    await t.engine.recordWebhookRejected('int_missing', { provider: 'provider_a', eventType: 'x', result: 'error', detail: '' });
    expect(await events()).toEqual([]);
  });

  it('refuses an entry that does not describe a delivery, writing nothing', async () => {
    const bad = [
      { provider: 'provider_b', eventType: 'x', result: 'error', detail: '' }, // not this integration's provider
      { provider: 'provider_a', eventType: '', result: 'error', detail: '' },
      { provider: 'provider_a', eventType: 'x', result: 7, detail: '' },
    ];
    for (const entry of bad) expect(await codeOf(t.engine.recordWebhookRejected(c.providerA.id, entry as never))).toBe('invalid_request');
    expect(await events()).toEqual([]);
  });
});

describe('a provider_a customer the host fetched is remembered', () => {
  it('a command whose customer carries e-mail and provider ID saves the mapping, so later events of that customer resolve without it', async () => {
    const first = await t.engine.applyPaymentCommand(c.providerA.id, payA('sub_1', { providerCustomerId: 'ctm_9', email: 'Nia@Example.test', name: 'Nia' }));
    expect(first.result).toBe('processed');
    // A later event of another subscription names only the provider customer ID, as provider_a sends it.
    const second = await t.engine.applyPaymentCommand(c.providerA.id, payA('sub_2', { providerCustomerId: 'ctm_9', email: null, name: null }));
    expect(second.result).toBe('processed');
    const license = await t.engine.getLicense(c.account.id, second.licenseId!);
    expect(license.customer).toMatchObject({ email: 'nia@example.test', name: 'Nia' });
    expect((await t.engine.listCustomers(c.account.id)).data).toHaveLength(1);
  });

  it('a customer fetched again with a new e-mail updates the mapping', async () => {
    await t.engine.applyPaymentCommand(c.providerA.id, payA('sub_1', { providerCustomerId: 'ctm_9', email: 'nia@example.test', name: 'Nia' }));
    await t.engine.applyPaymentCommand(c.providerA.id, payA('sub_2', { providerCustomerId: 'ctm_9', email: 'nia@new.example.test', name: 'Nia K' }));
    const third = await t.engine.applyPaymentCommand(c.providerA.id, payA('sub_3', { providerCustomerId: 'ctm_9', email: null, name: null }));
    expect((await t.engine.getLicense(c.account.id, third.licenseId!)).customer).toMatchObject({ email: 'nia@new.example.test', name: 'Nia K' });
  });

  it('a command that fails keeps no mapping', async () => {
    const bad = { ...payA('sub_1', { providerCustomerId: 'ctm_9', email: 'nia@example.test', name: 'Nia' }), quantity: 0 };
    expect(await codeOf(t.engine.applyPaymentCommand(c.providerA.id, bad))).toBe('invalid_request');
    expect(await refusedCode(t.engine.applyPaymentCommand(c.providerA.id, payA('sub_2', { providerCustomerId: 'ctm_9', email: null, name: null })))).toBe(
      'customer_unknown',
    );
  });
});

describe('one license per order', () => {
  const buy = (eventId: string, orderId = 'txn_order_1') =>
    t.engine.applyPaymentCommand(
      c.providerA.id,
      command('purchase_completed', {
        provider: 'provider_a',
        eventType: 'transaction.completed',
        eventId,
        customer: { providerCustomerId: null, email: 'buyer@example.test', name: null },
        orderId,
        priceId: 'pri_life',
        quantity: 1,
      }),
    );

  it('another event of an order that has its license is ignored and names that license', async () => {
    const first = await buy('evt_order_1');
    expect(first).toMatchObject({ result: 'processed', keyEmail: { licenseId: first.licenseId } });
    const second = await buy('evt_order_2');
    expect(second).toEqual({ result: 'ignored', detail: `order txn_order_1 already has license ${first.licenseId}`, licenseId: first.licenseId, keyEmail: null });
    expect((await t.engine.listLicenses(c.account.id)).data.map((l) => l.id)).toEqual([first.licenseId]);
    // Another order of the same customer is another license.
    expect((await buy('evt_order_3', 'txn_order_2')).result).toBe('processed');
  });

  it('an order whose license is gone (a purge cut short) is licensed again by its next event, not refused forever', async () => {
    const first = await buy('evt_order_1');
    await t.store.transaction((tx) => tx.delete('licenses', first.licenseId!));
    const again = await buy('evt_order_2');
    expect(again.result).toBe('processed');
    expect((await t.engine.listLicenses(c.account.id)).data.map((l) => l.id)).toEqual([again.licenseId]);
    expect((await buy('evt_order_3')).licenseId).toBe(again.licenseId);
  });
});

describe('secretsVersion: a delivery is applied only under the secrets it was verified with', () => {
  it('after the webhook secret changed, the old version is secrets_changed and writes nothing; the current one applies', async () => {
    const verifiedWith = (await t.engine.getIntegrationSecrets(c.providerA.id))!.secretsVersion;
    const event = payA('sub_rotated', { providerCustomerId: 'ctm_r', email: 'r@example.test', name: 'R' });
    await t.engine.updateIntegration(c.account.id, c.providerA.id, { webhookSecret: 'whsec_rotated' });
    expect(await refusedCode(t.engine.applyPaymentCommand(c.providerA.id, event, { secretsVersion: verifiedWith }))).toBe('secrets_changed');
    expect(await events()).toEqual([]);
    expect((await t.engine.listLicenses(c.account.id, {})).data).toEqual([]);
    const current = (await t.engine.getIntegrationSecrets(c.providerA.id))!.secretsVersion;
    expect(await t.engine.applyPaymentCommand(c.providerA.id, event, { secretsVersion: current })).toMatchObject({ result: 'processed' });
  });
});
