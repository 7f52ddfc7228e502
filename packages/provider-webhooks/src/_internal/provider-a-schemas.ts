import * as v from 'valibot';
import { positiveInteger, text, timestamp } from './schema-parts.js';

/** The notification envelope every provider_a event shares. */
export const envelopeSchema = v.object({
  event_id: text,
  event_type: text,
  occurred_at: timestamp,
  notification_id: text,
  data: v.looseObject({}),
});

const itemsSchema = v.pipe(
  v.array(v.object({ price: v.object({ id: text }), quantity: positiveInteger })),
  v.minLength(1, 'expected at least one item'),
);

const periodSchema = v.object({ starts_at: timestamp, ends_at: timestamp });

/** `data` of transaction.completed. */
export const transactionSchema = v.object({
  id: text,
  status: text,
  customer_id: text,
  subscription_id: v.nullable(text),
  items: itemsSchema,
  billing_period: v.nullable(periodSchema),
});

/** Subscription statuses provider_a reports. */
export const SUBSCRIPTION_STATUSES = ['active', 'canceled', 'past_due', 'paused', 'trialing'] as const;

/** `data` of subscription.* events. */
export const subscriptionSchema = v.object({
  id: text,
  status: v.picklist(SUBSCRIPTION_STATUSES),
  customer_id: text,
  items: itemsSchema,
  current_billing_period: v.nullable(periodSchema),
  scheduled_change: v.nullish(v.looseObject({})),
});

/** `data` of adjustment.* events. */
export const adjustmentSchema = v.object({
  id: text,
  action: text,
  type: text,
  status: v.picklist(['pending_approval', 'approved', 'rejected', 'reversed']),
  transaction_id: text,
  subscription_id: v.nullable(text),
  customer_id: text,
});

/** `data` of customer.created / customer.updated. */
export const customerSchema = v.object({
  id: text,
  email: text,
  name: v.nullable(v.string()),
});
