import type { CommandBase, CustomerRef, PaymentCommand, SubscriptionStatus } from '@svc-licensing/license-engine';
import { WebhookParseError } from './_internal/errors.js';
import { readJson, validate } from './_internal/json.js';
import * as s from './_internal/provider-b-schemas.js';
import type { ParseResult, RawBody } from './_internal/types.js';

/**
 * The provider_b event types the service acts on: enable these on the provider's webhook.
 *
 * @example
 * ```ts
 * console.log(`Tick these events: ${PROVIDER_B_EVENT_TYPES.join(', ')}`);
 * ```
 */
export const PROVIDER_B_EVENT_TYPES = [
  'order_created',
  'order_refunded',
  'subscription_created',
  'subscription_updated',
  'subscription_cancelled',
  'subscription_resumed',
  'subscription_expired',
  'subscription_paused',
  'subscription_unpaused',
  'subscription_payment_success',
  'subscription_payment_failed',
  'subscription_payment_recovered',
  'subscription_payment_refunded',
] as const;

/**
 * A provider_b subscription status mapped to a license status.
 *
 * @example
 * ```ts
 * PROVIDER_B_STATUS_MAP.unpaid; // 'past_due'
 * ```
 */
export const PROVIDER_B_STATUS_MAP: Readonly<Record<(typeof s.SUBSCRIPTION_STATUSES)[number], SubscriptionStatus>> = {
  on_trial: 'active',
  active: 'active',
  past_due: 'past_due',
  unpaid: 'past_due',
  cancelled: 'canceled',
  paused: 'suspended',
  expired: 'expired',
};

const SUBSCRIPTION_EVENTS = new Set([
  'subscription_created',
  'subscription_updated',
  'subscription_cancelled',
  'subscription_resumed',
  'subscription_expired',
  'subscription_paused',
  'subscription_unpaused',
]);

const INVOICE_EVENTS = new Set([
  'subscription_payment_success',
  'subscription_payment_failed',
  'subscription_payment_recovered',
  'subscription_payment_refunded',
]);

type Attributes = Record<string, unknown>;

function customerOf(a: { customer_id: string; user_email: string; user_name?: string | null | undefined }): CustomerRef {
  return { providerCustomerId: a.customer_id, email: a.user_email, name: a.user_name ?? null };
}

/** A full refund: the refunded amount covers the total (or, without an amount, the status says so). */
function isFullRefund(a: { status: string; total: number; refunded_amount?: number | undefined }): boolean {
  if (a.refunded_amount === undefined) return a.status === 'refunded';
  return a.refunded_amount > 0 && a.refunded_amount >= a.total;
}

function wrongType(expected: string): ParseResult {
  return {
    ok: false,
    error: new WebhookParseError('invalid_payload', `Field \`data.type\`: expected "${expected}"`, { path: 'data.type' }),
  };
}

function commandFor(base: CommandBase, resource: { type: string; id: string; attributes: Attributes }): ParseResult {
  const ok = (command: PaymentCommand): ParseResult => ({ ok: true, command });
  const ignored = (reason: string): ParseResult => ok({ ...base, kind: 'ignored', reason });
  const event = base.eventType;
  const at = 'data.attributes';

  if (event === 'order_created' || event === 'order_refunded') {
    if (resource.type !== 'orders') return wrongType('orders');
    const o = validate(s.orderSchema, resource.attributes, at);
    if (!o.ok) return o;
    if (event === 'order_refunded') {
      return ok({ ...base, kind: 'refunded', subscriptionId: null, orderId: resource.id, full: isFullRefund(o.value) });
    }
    if (o.value.status !== 'paid') return ignored(`order ${o.value.status}`);
    return ok({
      ...base,
      kind: 'purchase_completed',
      customer: customerOf(o.value),
      orderId: resource.id,
      priceId: o.value.first_order_item.variant_id,
      quantity: o.value.first_order_item.quantity ?? 1,
    });
  }

  if (SUBSCRIPTION_EVENTS.has(event)) {
    if (resource.type !== 'subscriptions') return wrongType('subscriptions');
    const sub = validate(s.subscriptionSchema, resource.attributes, at);
    if (!sub.ok) return sub;
    const a = sub.value;
    const status = PROVIDER_B_STATUS_MAP[a.status];
    const common = {
      customer: customerOf(a),
      subscriptionId: resource.id,
      priceId: a.variant_id,
      quantity: a.first_subscription_item?.quantity ?? null,
    };
    // The subscription object is where provider_b states the paid period (`renews_at`); its invoices carry none.
    if (status === 'active' && a.renews_at !== null) {
      return ok({ ...base, kind: 'subscription_paid', ...common, orderId: a.order_id, paidUntil: a.renews_at });
    }
    return ok({ ...base, kind: 'subscription_changed', ...common, status, currentPeriodEnd: a.ends_at ?? a.renews_at });
  }

  if (INVOICE_EVENTS.has(event)) {
    if (resource.type !== 'subscription-invoices') return wrongType('subscription-invoices');
    const inv = validate(s.invoiceSchema, resource.attributes, at);
    if (!inv.ok) return inv;
    const a = inv.value;
    if (event === 'subscription_payment_refunded') {
      return ok({ ...base, kind: 'refunded', subscriptionId: a.subscription_id, orderId: null, full: isFullRefund(a) });
    }
    if (event === 'subscription_payment_success' || event === 'subscription_payment_recovered') {
      if (a.status !== 'paid') return ignored(`invoice ${a.status}`);
      return ok({
        ...base,
        kind: 'subscription_changed',
        customer: customerOf(a),
        subscriptionId: a.subscription_id,
        status: 'active',
        priceId: null,
        quantity: null,
        currentPeriodEnd: null,
      });
    }
    return ignored('payment failed; the status change arrives as subscription_updated');
  }

  return ignored(`unhandled event type ${event}`);
}

/**
 * Parses a verified provider_b webhook into a {@link PaymentCommand}. provider_b sends no event ID
 * or event time, so both are derived: `occurredAt` is `data.attributes.updated_at` (else
 * `created_at`) and `eventId` is `<event_name>:<data.type>:<data.id>:<occurredAt>`, which is the same
 * for every retry of one delivery and differs between two changes of one object.
 *
 * Mapping (docs/decisions.md): order_created (paid) → purchase_completed (variant ID as price ID;
 * the engine ignores it when the plan is a subscription plan); subscription_* object events follow
 * `status` (on_trial/active → active, past_due/unpaid → past_due, cancelled → canceled, paused →
 * suspended, expired → expired), and an active one with `renews_at` is a subscription_paid with
 * paidUntil = renews_at; subscription_payment_success/recovered → subscription_changed active;
 * order_refunded / subscription_payment_refunded → refunded (`full` only for the whole amount);
 * subscription_payment_failed and anything else → ignored.
 *
 * @example
 * ```ts
 * import { parseProviderBEvent } from '@svc-licensing/provider-webhooks';
 *
 * const parsed = parseProviderBEvent(rawBody);
 * if (parsed.ok && parsed.command.kind === 'purchase_completed') {
 *   console.log(parsed.command.customer.email, parsed.command.priceId); // 'grace@example.com' '418823'
 * }
 * ```
 */
export function parseProviderBEvent(rawBody: RawBody): ParseResult {
  const json = readJson(rawBody);
  if (!json.ok) return json;
  const envelope = validate(s.envelopeSchema, json.value);
  if (!envelope.ok) return envelope;
  const { meta, data } = envelope.value;
  const occurredAt = data.attributes.updated_at ?? data.attributes.created_at;
  if (occurredAt === undefined) {
    return {
      ok: false,
      error: new WebhookParseError('invalid_payload', 'Field `data.attributes.updated_at`: expected an ISO 8601 timestamp', {
        path: 'data.attributes.updated_at',
      }),
    };
  }
  const base: CommandBase = {
    provider: 'provider_b',
    eventId: `${meta.event_name}:${data.type}:${data.id}:${occurredAt}`,
    eventType: meta.event_name,
    occurredAt,
    // Test-mode events belong to sandbox integrations only (the engine ignores them on a live one).
    ...(meta.test_mode === undefined ? {} : { environment: meta.test_mode ? 'sandbox' : 'live' }),
  };
  return commandFor(base, data);
}
