import { describe, expect, it } from 'vitest';
import { fixtureJson, readFixture } from '../../../fixtures/index.js';
import { PROVIDER_A_STATUS_MAP, parseProviderAEvent } from '../src/index.js';

const parse = (name: string) => parseProviderAEvent(readFixture('provider_a', name));
const parseJson = (body: unknown) => parseProviderAEvent(JSON.stringify(body));
const command = (result: ReturnType<typeof parseProviderAEvent>) => {
  if (!result.ok) throw new Error(`expected a command, got ${result.error.code} at ${result.error.path}`);
  return result.command;
};

const customerId = 'ctm_01hv8wt8nffez4p2t6typn4a5j';
const idOnly = { providerCustomerId: customerId, email: null, name: null };
const subscriptionId = 'sub_01hv8x29kz0t586xy6zn1a62ny';
const subTxn = 'txn_01hv8x4gsw5gq1r4vty1bq4yzc';
const base = (name: string) => {
  const e = fixtureJson('provider_a', name);
  return { provider: 'provider_a', eventId: e.event_id, eventType: e.event_type, occurredAt: e.occurred_at };
};

describe('parseProviderAEvent: one fixture per event type', () => {
  it('customer.created and customer.updated map the customer ID to an e-mail', () => {
    expect(command(parse('customer.created'))).toEqual({
      ...base('customer.created'),
      kind: 'customer_upserted',
      customer: { providerCustomerId: customerId, email: 'ada@example.com', name: null },
    });
    expect(command(parse('customer.updated'))).toEqual({
      ...base('customer.updated'),
      kind: 'customer_upserted',
      customer: { providerCustomerId: customerId, email: 'ada.lovelace@example.com', name: 'Ada Lovelace' },
    });
  });

  it('transaction.completed without a subscription is a one-time purchase', () => {
    expect(command(parse('transaction.completed'))).toEqual({
      ...base('transaction.completed'),
      kind: 'purchase_completed',
      customer: idOnly,
      orderId: 'txn_01hv8wptq3fpj5ek4xm5p3khb0',
      priceId: 'pri_01hv0w3gq5t6wkq9r2dq7y8m1b',
      quantity: 1,
    });
  });

  it('transaction.completed with a subscription pays until the billing period ends, with the first item', () => {
    expect(command(parse('transaction.completed.subscription'))).toEqual({
      ...base('transaction.completed.subscription'),
      kind: 'subscription_paid',
      customer: idOnly,
      subscriptionId,
      orderId: subTxn,
      priceId: 'pri_01hv0vax6rv18t4tamj848ne4d',
      quantity: 3,
      paidUntil: '2024-05-12T10:37:59.556997Z',
    });
  });

  it.each([
    ['subscription.activated', 'active'],
    ['subscription.resumed', 'active'],
    ['subscription.past_due', 'past_due'],
    ['subscription.canceled', 'canceled'],
    ['subscription.paused', 'suspended'],
    ['subscription.updated', 'active'], // the fixture's data.status is trialing
  ] as const)('%s gives subscription_changed %s and no dates', (name, status) => {
    expect(command(parse(name))).toEqual({
      ...base(name),
      kind: 'subscription_changed',
      customer: idOnly,
      subscriptionId,
      status,
      priceId: 'pri_01hv0vax6rv18t4tamj848ne4d',
      quantity: 3,
      currentPeriodEnd: null,
    });
  });

  it('adjustment.created for a refund awaiting approval changes nothing', () => {
    expect(command(parse('adjustment.created'))).toEqual({ ...base('adjustment.created'), kind: 'ignored', reason: 'refund pending_approval' });
  });

  it('adjustment.updated for an approved full refund gives refunded (full)', () => {
    expect(command(parse('adjustment.updated'))).toEqual({
      ...base('adjustment.updated'),
      kind: 'refunded',
      subscriptionId,
      orderId: subTxn,
      full: true,
    });
  });

  it('an approved partial refund gives refunded with full: false (the license does not change)', () => {
    expect(command(parse('adjustment.updated.partial'))).toMatchObject({ kind: 'refunded', full: false, orderId: subTxn });
  });

  it('a chargeback gives chargeback', () => {
    expect(command(parse('adjustment.created.chargeback'))).toEqual({
      ...base('adjustment.created.chargeback'),
      kind: 'chargeback',
      subscriptionId,
      orderId: subTxn,
    });
  });
});

describe('parseProviderAEvent: mapping rows', () => {
  it.each(Object.entries(PROVIDER_A_STATUS_MAP))('subscription.updated with status %s follows it to %s', (status, expected) => {
    const body = fixtureJson('provider_a', 'subscription.updated');
    body.data.status = status;
    if (status === 'canceled' || status === 'paused') body.data.current_billing_period = null;
    expect(command(parseJson(body))).toMatchObject({ kind: 'subscription_changed', status: expected, currentPeriodEnd: null });
  });

  it('the named subscription events set their own status whatever data.status says', () => {
    const body = fixtureJson('provider_a', 'subscription.canceled');
    body.data.status = 'active';
    expect(command(parseJson(body))).toMatchObject({ kind: 'subscription_changed', status: 'canceled' });
  });

  it('a refund counts only once approved; rejected and reversed refunds change nothing', () => {
    for (const status of ['pending_approval', 'rejected', 'reversed']) {
      const body = fixtureJson('provider_a', 'adjustment.updated');
      body.data.status = status;
      expect(command(parseJson(body))).toMatchObject({ kind: 'ignored', reason: `refund ${status}` });
    }
  });

  it('a chargeback revokes unless provider_a rejected or reversed it', () => {
    for (const [status, kind] of [['pending_approval', 'chargeback'], ['approved', 'chargeback'], ['rejected', 'ignored'], ['reversed', 'ignored']]) {
      const body = fixtureJson('provider_a', 'adjustment.created.chargeback');
      body.data.status = status;
      expect(command(parseJson(body)).kind, status).toBe(kind);
    }
  });

  it('credits, chargeback warnings and chargeback reversals change nothing', () => {
    for (const action of ['credit', 'credit_reverse', 'chargeback_warning', 'chargeback_reverse']) {
      const body = fixtureJson('provider_a', 'adjustment.created.chargeback');
      body.data.action = action;
      expect(command(parseJson(body))).toMatchObject({ kind: 'ignored', reason: `adjustment action ${action}` });
    }
  });

  it('a refund of a one-time purchase refers to its transaction and no subscription', () => {
    const body = fixtureJson('provider_a', 'adjustment.updated');
    body.data.subscription_id = null;
    body.data.transaction_id = 'txn_01hv8wptq3fpj5ek4xm5p3khb0';
    expect(command(parseJson(body))).toMatchObject({ kind: 'refunded', subscriptionId: null, orderId: 'txn_01hv8wptq3fpj5ek4xm5p3khb0', full: true });
  });

  it('a subscription transaction without a billing period changes nothing', () => {
    const body = fixtureJson('provider_a', 'transaction.completed.subscription');
    body.data.billing_period = null;
    expect(command(parseJson(body))).toMatchObject({ kind: 'ignored', reason: 'subscription transaction without a billing period' });
  });

  it('keeps occurred_at with its full precision as the ordering key', () => {
    const body = fixtureJson('provider_a', 'subscription.past_due');
    body.occurred_at = '2024-05-12T10:38:21.338104999Z';
    expect(command(parseJson(body)).occurredAt).toBe('2024-05-12T10:38:21.338104999Z');
  });

  it.each(['subscription.created', 'subscription.trialing', 'transaction.paid', 'payout.paid', 'constructor'])(
    'an event type the service does not act on (%s) is ignored',
    (eventType) => {
      const body = fixtureJson('provider_a', 'subscription.activated');
      body.event_type = eventType;
      expect(command(parseJson(body))).toEqual({
        provider: 'provider_a',
        eventId: body.event_id,
        eventType,
        occurredAt: body.occurred_at,
        kind: 'ignored',
        reason: `unhandled event type ${eventType}`,
      });
    },
  );
});
