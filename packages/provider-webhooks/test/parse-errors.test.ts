import { describe, expect, it } from 'vitest';
import { fixtureJson } from '../../../fixtures/index.js';
import { WebhookParseError, parseProviderAEvent, parseProviderBEvent } from '../src/index.js';

type Parser = typeof parseProviderAEvent;

function errorOf(parse: Parser, body: string | Uint8Array) {
  const result = parse(body);
  if (result.ok) throw new Error(`expected a parse error, got ${result.command.kind}`);
  expect(WebhookParseError.is(result.error)).toBe(true);
  return result.error;
}

/** The fixture with the field at `path` removed. */
function without(provider: 'provider_a' | 'provider_b', name: string, path: string): string {
  const body = fixtureJson(provider, name);
  const keys = path.split('.');
  let node: any = body;
  for (const key of keys.slice(0, -1)) node = node[key];
  delete node[keys.at(-1)!];
  return JSON.stringify(body);
}

describe.each([
  ['provider_a', parseProviderAEvent],
  ['provider_b', parseProviderBEvent],
] as const)('%s: bodies that are not JSON', (_provider, parse) => {
  it.each(['', 'not json', '{"event_id":', '<xml/>'])('gives invalid_json for %j', (body) => {
    expect(errorOf(parse, body)).toMatchObject({ code: 'invalid_json', path: null });
  });

  it('gives invalid_json for bytes that are not UTF-8', () => {
    expect(errorOf(parse, new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])).code).toBe('invalid_json');
  });

  it.each(['null', '[]', '42', '"text"'])('gives invalid_payload for the JSON value %s', (body) => {
    expect(errorOf(parse, body).code).toBe('invalid_payload');
  });
});

describe('provider_a: a missing required field gives invalid_payload with its path', () => {
  it.each([
    ['transaction.completed', 'event_id'],
    ['transaction.completed', 'event_type'],
    ['transaction.completed', 'occurred_at'],
    ['transaction.completed', 'notification_id'],
    ['transaction.completed', 'data'],
    ['transaction.completed', 'data.id'],
    ['transaction.completed', 'data.customer_id'],
    ['transaction.completed', 'data.subscription_id'],
    ['transaction.completed', 'data.billing_period'],
    ['transaction.completed', 'data.items'],
    ['transaction.completed.subscription', 'data.items.0.price.id'],
    ['transaction.completed.subscription', 'data.items.0.quantity'],
    ['subscription.updated', 'data.status'],
    ['subscription.updated', 'data.current_billing_period'],
    ['subscription.activated', 'data.customer_id'],
    ['adjustment.updated', 'data.action'],
    ['adjustment.updated', 'data.type'],
    ['adjustment.updated', 'data.status'],
    ['adjustment.updated', 'data.transaction_id'],
    ['adjustment.updated', 'data.subscription_id'],
    ['customer.created', 'data.email'],
    ['customer.created', 'data.name'],
  ])('%s without %s', (name, path) => {
    const error = errorOf(parseProviderAEvent, without('provider_a', name, path));
    expect(error).toMatchObject({ code: 'invalid_payload', path });
    expect(error.message).toContain(path);
  });

  it('rejects a wrong type or an unknown status with the field\'s path', () => {
    const body = fixtureJson('provider_a', 'subscription.updated');
    body.data.status = 'frozen';
    expect(errorOf(parseProviderAEvent, JSON.stringify(body))).toMatchObject({ code: 'invalid_payload', path: 'data.status' });
    const txn = fixtureJson('provider_a', 'transaction.completed');
    txn.data.items[0].quantity = '1';
    expect(errorOf(parseProviderAEvent, JSON.stringify(txn))).toMatchObject({ code: 'invalid_payload', path: 'data.items.0.quantity' });
    txn.data.items = [];
    expect(errorOf(parseProviderAEvent, JSON.stringify(txn))).toMatchObject({ code: 'invalid_payload', path: 'data.items' });
    const bad = fixtureJson('provider_a', 'customer.created');
    bad.occurred_at = 'yesterday';
    expect(errorOf(parseProviderAEvent, JSON.stringify(bad))).toMatchObject({ code: 'invalid_payload', path: 'occurred_at' });
  });
});

describe('provider_b: a missing required field gives invalid_payload with its path', () => {
  it.each([
    ['order_created', 'meta'],
    ['order_created', 'meta.event_name'],
    ['order_created', 'data.id'],
    ['order_created', 'data.type'],
    ['order_created', 'data.attributes'],
    ['order_created', 'data.attributes.user_email'],
    ['order_created', 'data.attributes.customer_id'],
    ['order_created', 'data.attributes.status'],
    ['order_created', 'data.attributes.total'],
    ['order_created', 'data.attributes.first_order_item'],
    ['order_created', 'data.attributes.first_order_item.variant_id'],
    ['subscription_updated', 'data.attributes.status'],
    ['subscription_updated', 'data.attributes.variant_id'],
    ['subscription_updated', 'data.attributes.order_id'],
    ['subscription_updated', 'data.attributes.renews_at'],
    ['subscription_updated', 'data.attributes.ends_at'],
    ['subscription_payment_success', 'data.attributes.subscription_id'],
    ['subscription_payment_success', 'data.attributes.billing_reason'],
    ['subscription_payment_refunded', 'data.attributes.total'],
  ])('%s without %s', (name, path) => {
    const error = errorOf(parseProviderBEvent, without('provider_b', name, path));
    expect(error).toMatchObject({ code: 'invalid_payload', path });
  });

  it('needs a time: updated_at or created_at', () => {
    const body = fixtureJson('provider_b', 'order_created');
    delete body.data.attributes.updated_at;
    delete body.data.attributes.created_at;
    expect(errorOf(parseProviderBEvent, JSON.stringify(body))).toMatchObject({ code: 'invalid_payload', path: 'data.attributes.updated_at' });
  });

  it('refuses an event whose resource type does not fit its name', () => {
    const body = fixtureJson('provider_b', 'subscription_created');
    body.meta.event_name = 'order_created';
    expect(errorOf(parseProviderBEvent, JSON.stringify(body))).toMatchObject({ code: 'invalid_payload', path: 'data.type' });
  });

  it('rejects an unknown subscription status with its path', () => {
    const body = fixtureJson('provider_b', 'subscription_updated');
    body.data.attributes.status = 'frozen';
    expect(errorOf(parseProviderBEvent, JSON.stringify(body))).toMatchObject({ code: 'invalid_payload', path: 'data.attributes.status' });
  });
});

describe('WebhookParseError', () => {
  it('is recognised by is() across module copies and nothing else is', () => {
    const copy = Object.assign(new Error('x'), { name: 'WebhookParseError', code: 'invalid_json' });
    expect(WebhookParseError.is(copy)).toBe(true);
    expect(WebhookParseError.is(new Error('x'))).toBe(false);
    expect(WebhookParseError.is({ code: 'invalid_json' })).toBe(false);
    expect(WebhookParseError.is(null)).toBe(false);
  });
});
