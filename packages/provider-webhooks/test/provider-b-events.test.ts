import { describe, expect, it } from 'vitest';
import { fixtureJson, readFixture } from '../../../fixtures/index.js';
import { PROVIDER_B_STATUS_MAP, parseProviderBEvent } from '../src/index.js';

const parse = (name: string) => parseProviderBEvent(readFixture('provider_b', name));
const parseJson = (body: unknown) => parseProviderBEvent(JSON.stringify(body));
const command = (result: ReturnType<typeof parseProviderBEvent>) => {
  if (!result.ok) throw new Error(`expected a command, got ${result.error.code} at ${result.error.path}`);
  return result.command;
};

const buyer = { providerCustomerId: '3591022', email: 'grace@example.com', name: 'Grace Hopper' };
/** provider_b's derived event ID and time: `<event_name>:<data.type>:<data.id>:<updated_at>`. */
const base = (name: string) => {
  const e = fixtureJson('provider_b', name);
  const at = e.data.attributes.updated_at;
  return { provider: 'provider_b', eventId: `${e.meta.event_name}:${e.data.type}:${e.data.id}:${at}`, eventType: name, occurredAt: at, environment: 'live' };
};
const sub = { customer: buyer, subscriptionId: '507811', priceId: '418830' };

describe('parseProviderBEvent: test mode', () => {
  it('marks an event sandbox when meta.test_mode is true, live when false, and says nothing when absent', () => {
    const body = fixtureJson('provider_b', 'order_created');
    expect(command(parseJson(body)).environment).toBe('live');
    body.meta.test_mode = true;
    expect(command(parseJson(body)).environment).toBe('sandbox');
    delete body.meta.test_mode;
    expect(command(parseJson(body))).not.toHaveProperty('environment');
  });
});

describe('parseProviderBEvent: one fixture per event type', () => {
  it('order_created (paid) is a purchase of the first item\'s variant', () => {
    expect(command(parse('order_created'))).toEqual({
      ...base('order_created'),
      eventId: 'order_created:orders:4412093:2024-06-03T09:12:46.000000Z',
      kind: 'purchase_completed',
      customer: buyer,
      orderId: '4412093',
      priceId: '418823',
      quantity: 1,
    });
  });

  it('order_refunded for the whole amount gives refunded (full)', () => {
    expect(command(parse('order_refunded'))).toEqual({ ...base('order_refunded'), kind: 'refunded', subscriptionId: null, orderId: '4412093', full: true });
  });

  it.each([
    ['subscription_created', 2, '2024-07-05T11:20:14.000000Z'],
    ['subscription_updated', 3, '2024-08-05T11:20:14.000000Z'],
    ['subscription_resumed', 2, '2024-08-05T11:20:14.000000Z'],
    ['subscription_unpaused', 2, '2024-10-05T11:20:14.000000Z'],
  ] as const)('%s (active) pays until renews_at, with variant and seats', (name, quantity, paidUntil) => {
    expect(command(parse(name))).toEqual({ ...base(name), kind: 'subscription_paid', ...sub, orderId: '4418310', quantity, paidUntil });
  });

  it.each([
    ['subscription_cancelled', 'canceled'],
    ['subscription_paused', 'suspended'],
    ['subscription_expired', 'expired'],
  ] as const)('%s gives subscription_changed %s', (name, status) => {
    const periodEnd = '2024-08-05T11:20:14.000000Z';
    expect(command(parse(name))).toEqual({ ...base(name), kind: 'subscription_changed', ...sub, status, quantity: 2, currentPeriodEnd: periodEnd });
  });

  it.each(['subscription_payment_success', 'subscription_payment_recovered'])('%s (invoice paid) makes the subscription active, changing no plan or date', (name) => {
    expect(command(parse(name))).toEqual({
      ...base(name),
      kind: 'subscription_changed',
      customer: buyer,
      subscriptionId: '507811',
      status: 'active',
      priceId: null,
      quantity: null,
      currentPeriodEnd: null,
    });
  });

  it('subscription_payment_failed changes nothing (subscription_updated carries past_due)', () => {
    expect(command(parse('subscription_payment_failed'))).toMatchObject({ ...base('subscription_payment_failed'), kind: 'ignored' });
  });

  it('subscription_payment_refunded for the whole invoice gives refunded (full) by subscription', () => {
    expect(command(parse('subscription_payment_refunded'))).toEqual({
      ...base('subscription_payment_refunded'),
      kind: 'refunded',
      subscriptionId: '507811',
      orderId: null,
      full: true,
    });
  });
});

describe('parseProviderBEvent: mapping rows', () => {
  it.each(Object.entries(PROVIDER_B_STATUS_MAP))('a subscription event with status %s gives %s', (status, expected) => {
    const body = fixtureJson('provider_b', 'subscription_updated');
    body.data.attributes.status = status;
    const result = command(parseJson(body));
    if (expected === 'active') expect(result).toMatchObject({ kind: 'subscription_paid', paidUntil: '2024-08-05T11:20:14.000000Z' });
    else expect(result).toMatchObject({ kind: 'subscription_changed', status: expected });
  });

  it('an active subscription without renews_at changes the status only', () => {
    const body = fixtureJson('provider_b', 'subscription_created');
    body.data.attributes.renews_at = null;
    expect(command(parseJson(body))).toMatchObject({ kind: 'subscription_changed', status: 'active', currentPeriodEnd: null });
  });

  it('a subscription without first_subscription_item leaves seats unchanged', () => {
    const body = fixtureJson('provider_b', 'subscription_updated');
    body.data.attributes.first_subscription_item = null;
    expect(command(parseJson(body))).toMatchObject({ kind: 'subscription_paid', quantity: null });
  });

  it('an order that is not paid changes nothing', () => {
    for (const status of ['pending', 'failed']) {
      const body = fixtureJson('provider_b', 'order_created');
      body.data.attributes.status = status;
      expect(command(parseJson(body))).toMatchObject({ kind: 'ignored', reason: `order ${status}` });
    }
  });

  it('an order item with a quantity carries it', () => {
    const body = fixtureJson('provider_b', 'order_created');
    body.data.attributes.first_order_item.quantity = 5;
    expect(command(parseJson(body))).toMatchObject({ kind: 'purchase_completed', quantity: 5 });
  });

  it('a partial order or invoice refund gives refunded with full: false', () => {
    const order = fixtureJson('provider_b', 'order_refunded');
    Object.assign(order.data.attributes, { status: 'partial_refund', refunded: false, refunded_amount: 1000 });
    expect(command(parseJson(order))).toMatchObject({ kind: 'refunded', full: false });
    const invoice = fixtureJson('provider_b', 'subscription_payment_refunded');
    Object.assign(invoice.data.attributes, { status: 'partial_refund', refunded_amount: 900 });
    expect(command(parseJson(invoice))).toMatchObject({ kind: 'refunded', full: false });
  });

  it('without refunded_amount (older payloads) the status decides whether a refund is full', () => {
    for (const [status, full] of [['refunded', true], ['partial_refund', false]] as const) {
      const body = fixtureJson('provider_b', 'order_refunded');
      delete body.data.attributes.refunded_amount;
      body.data.attributes.status = status;
      expect(command(parseJson(body))).toMatchObject({ kind: 'refunded', full });
    }
  });

  it('an invoice event for an invoice that is not paid changes nothing', () => {
    const body = fixtureJson('provider_b', 'subscription_payment_success');
    body.data.attributes.status = 'void';
    expect(command(parseJson(body))).toMatchObject({ kind: 'ignored', reason: 'invoice void' });
  });

  it('derives occurredAt from created_at when updated_at is absent, and the event ID from it', () => {
    const body = fixtureJson('provider_b', 'order_created');
    delete body.data.attributes.updated_at;
    expect(command(parseJson(body))).toMatchObject({
      occurredAt: '2024-06-03T09:12:44.000000Z',
      eventId: 'order_created:orders:4412093:2024-06-03T09:12:44.000000Z',
    });
  });

  it('gives a retried delivery the same event ID and a later change of the object another', () => {
    const first = command(parse('subscription_updated'));
    expect(command(parse('subscription_updated')).eventId).toBe(first.eventId);
    const later = fixtureJson('provider_b', 'subscription_updated');
    later.data.attributes.updated_at = '2024-07-05T11:21:03.000000Z';
    expect(command(parseJson(later)).eventId).not.toBe(first.eventId);
  });

  it.each(['license_key_created', 'license_key_updated', 'affiliate_activated', 'subscription_plan_changed'])(
    'an event type the service does not act on (%s) is ignored',
    (eventName) => {
      const body = fixtureJson('provider_b', 'subscription_updated');
      body.meta.event_name = eventName;
      expect(command(parseJson(body))).toMatchObject({ kind: 'ignored', eventType: eventName, reason: `unhandled event type ${eventName}` });
    },
  );
});
