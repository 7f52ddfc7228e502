import * as v from 'valibot';
import { cents, numericId, positiveInteger, text, timestamp } from './schema-parts.js';

/** The webhook envelope every provider_b event shares (a JSON:API resource plus `meta`). */
export const envelopeSchema = v.object({
  meta: v.object({
    event_name: text,
    custom_data: v.nullish(v.record(v.string(), v.unknown())),
    test_mode: v.optional(v.boolean()),
  }),
  data: v.object({
    type: text,
    id: numericId,
    attributes: v.looseObject({
      created_at: v.optional(timestamp),
      updated_at: v.optional(timestamp),
    }),
  }),
});

/** Subscription statuses provider_b reports. */
export const SUBSCRIPTION_STATUSES = ['on_trial', 'active', 'paused', 'past_due', 'unpaid', 'cancelled', 'expired'] as const;

const buyer = {
  customer_id: numericId,
  user_email: text,
  user_name: v.nullish(v.string()),
};

/** `data.attributes` of a `subscriptions` resource. */
export const subscriptionSchema = v.object({
  ...buyer,
  status: v.picklist(SUBSCRIPTION_STATUSES),
  order_id: numericId,
  variant_id: numericId,
  renews_at: v.nullable(timestamp),
  ends_at: v.nullable(timestamp),
  first_subscription_item: v.nullish(v.object({ quantity: positiveInteger })),
});

/** `data.attributes` of an `orders` resource. */
export const orderSchema = v.object({
  ...buyer,
  status: text,
  refunded: v.optional(v.boolean()),
  total: cents,
  refunded_amount: v.optional(cents),
  first_order_item: v.object({ variant_id: numericId, quantity: v.optional(positiveInteger) }),
});

/** `data.attributes` of a `subscription-invoices` resource. */
export const invoiceSchema = v.object({
  ...buyer,
  subscription_id: numericId,
  billing_reason: text,
  status: text,
  refunded: v.optional(v.boolean()),
  total: cents,
  refunded_amount: v.optional(cents),
});
