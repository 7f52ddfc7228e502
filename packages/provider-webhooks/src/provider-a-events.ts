import type { CommandBase, PaymentCommand, SubscriptionStatus } from '@svc-licensing/license-engine';
import { readJson, validate } from './_internal/json.js';
import * as s from './_internal/provider-a-schemas.js';
import type { ParseResult, RawBody } from './_internal/types.js';

/**
 * The provider_a event types the service acts on: the list a notification destination must send.
 *
 * @example
 * ```ts
 * console.log(`Subscribe the destination to: ${PROVIDER_A_EVENT_TYPES.join(', ')}`);
 * ```
 */
export const PROVIDER_A_EVENT_TYPES = [
  'customer.created',
  'customer.updated',
  'transaction.completed',
  'subscription.activated',
  'subscription.updated',
  'subscription.past_due',
  'subscription.canceled',
  'subscription.paused',
  'subscription.resumed',
  'adjustment.created',
  'adjustment.updated',
] as const;

/**
 * A provider_a subscription status mapped to a license status (`subscription.updated` follows it).
 *
 * @example
 * ```ts
 * PROVIDER_A_STATUS_MAP.paused; // 'suspended'
 * ```
 */
export const PROVIDER_A_STATUS_MAP: Readonly<Record<(typeof s.SUBSCRIPTION_STATUSES)[number], SubscriptionStatus>> = {
  active: 'active',
  trialing: 'active',
  past_due: 'past_due',
  canceled: 'canceled',
  paused: 'suspended',
};

/** Status set by the named subscription events, whatever `data.status` says. */
const STATUS_BY_EVENT: Readonly<Record<string, SubscriptionStatus>> = {
  'subscription.activated': 'active',
  'subscription.resumed': 'active',
  'subscription.past_due': 'past_due',
  'subscription.canceled': 'canceled',
  'subscription.paused': 'suspended',
};

type Data = Record<string, unknown>;

function commandFor(base: CommandBase, data: Data): ParseResult {
  const ok = (command: PaymentCommand): ParseResult => ({ ok: true, command });
  const ignored = (reason: string): ParseResult => ok({ ...base, kind: 'ignored', reason });
  const type = base.eventType;

  if (type === 'customer.created' || type === 'customer.updated') {
    const c = validate(s.customerSchema, data, 'data');
    if (!c.ok) return c;
    return ok({ ...base, kind: 'customer_upserted', customer: { providerCustomerId: c.value.id, email: c.value.email, name: c.value.name } });
  }

  if (type === 'transaction.completed') {
    const t = validate(s.transactionSchema, data, 'data');
    if (!t.ok) return t;
    const [item] = t.value.items;
    if (item === undefined) return ignored('transaction without items');
    const customer = { providerCustomerId: t.value.customer_id, email: null, name: null };
    if (t.value.subscription_id === null) {
      return ok({ ...base, kind: 'purchase_completed', customer, orderId: t.value.id, priceId: item.price.id, quantity: item.quantity });
    }
    if (t.value.billing_period === null) return ignored('subscription transaction without a billing period');
    return ok({
      ...base,
      kind: 'subscription_paid',
      customer,
      subscriptionId: t.value.subscription_id,
      orderId: t.value.id,
      priceId: item.price.id,
      quantity: item.quantity,
      paidUntil: t.value.billing_period.ends_at,
    });
  }

  if (Object.hasOwn(STATUS_BY_EVENT, type) || type === 'subscription.updated') {
    const sub = validate(s.subscriptionSchema, data, 'data');
    if (!sub.ok) return sub;
    const [item] = sub.value.items;
    return ok({
      ...base,
      kind: 'subscription_changed',
      customer: { providerCustomerId: sub.value.customer_id, email: null, name: null },
      subscriptionId: sub.value.id,
      status: STATUS_BY_EVENT[type] ?? PROVIDER_A_STATUS_MAP[sub.value.status],
      priceId: item?.price.id ?? null,
      quantity: item?.quantity ?? null,
      // provider_a status events change no dates: the paid period comes from transaction.completed.
      currentPeriodEnd: null,
    });
  }

  if (type === 'adjustment.created' || type === 'adjustment.updated') {
    const a = validate(s.adjustmentSchema, data, 'data');
    if (!a.ok) return a;
    const refs = { subscriptionId: a.value.subscription_id, orderId: a.value.transaction_id };
    if (a.value.action === 'refund') {
      if (a.value.status !== 'approved') return ignored(`refund ${a.value.status}`);
      return ok({ ...base, kind: 'refunded', ...refs, full: a.value.type === 'full' });
    }
    if (a.value.action === 'chargeback') {
      if (a.value.status === 'rejected' || a.value.status === 'reversed') return ignored(`chargeback ${a.value.status}`);
      return ok({ ...base, kind: 'chargeback', ...refs });
    }
    return ignored(`adjustment action ${a.value.action}`);
  }

  return ignored(`unhandled event type ${type}`);
}

/**
 * Parses a verified provider_a notification into a {@link PaymentCommand}. Verify the signature first
 * (or use `readWebhook`, which does both). A body that is not JSON gives `invalid_json`; one that
 * lacks a field the event needs gives `invalid_payload` with the field's path; an event type the
 * service does not act on gives an `ignored` command.
 *
 * Mapping: customer.created/updated → customer_upserted; transaction.completed → purchase_completed
 * (no subscription) or subscription_paid (paidUntil = billing_period.ends_at, first item's price and
 * quantity); subscription.activated/resumed → active, past_due → past_due, canceled → canceled,
 * paused → suspended, updated → its `data.status` (trialing → active), all with no dates;
 * adjustment.* → refunded (action refund, status approved; `full` when type is full), chargeback
 * (action chargeback unless rejected or reversed), anything else ignored.
 *
 * @example
 * ```ts
 * import { parseProviderAEvent } from '@svc-licensing/provider-webhooks';
 *
 * const parsed = parseProviderAEvent(rawBody);
 * if (!parsed.ok) console.error(parsed.error.code, parsed.error.path); // 'invalid_payload' 'data.customer_id'
 * else if (parsed.command.kind === 'subscription_paid') console.log(parsed.command.paidUntil);
 * ```
 */
export function parseProviderAEvent(rawBody: RawBody): ParseResult {
  const json = readJson(rawBody);
  if (!json.ok) return json;
  const envelope = validate(s.envelopeSchema, json.value);
  if (!envelope.ok) return envelope;
  const e = envelope.value;
  const base: CommandBase = { provider: 'provider_a', eventId: e.event_id, eventType: e.event_type, occurredAt: e.occurred_at };
  return commandFor(base, e.data);
}
