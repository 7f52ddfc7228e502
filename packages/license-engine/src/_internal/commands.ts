import type { Environment, ProviderName } from './records.js';

/**
 * Typed commands that payment-provider events turn into (`@svc-licensing/provider-webhooks`
 * produces them; the engine applies them). Provider-neutral: each provider's parser maps its
 * own event names and statuses onto these.
 */
export interface CommandBase {
  provider: ProviderName;
  /** The provider's event ID; with the integration ID it de-duplicates deliveries. */
  eventId: string;
  /** The provider's own event name, for the audit log (`transaction.completed`, `order_created`). */
  eventType: string;
  /**
   * When the provider says the event happened, ISO 8601 with the provider's full precision
   * (fractions of a second kept). With `eventId` it forms the ordering key (docs/decisions.md).
   */
  occurredAt: string;
  /**
   * Where the provider says the event happened, when its payload says so (provider_b's
   * `meta.test_mode`: `sandbox` when true, `live` when false); absent when it does not (provider_a).
   * An event of the other environment than its integration's is `ignored`.
   */
  environment?: Environment;
}

/** Who paid, as far as the event tells: provider_a sends only an ID, provider_b an e-mail. */
export interface CustomerRef {
  providerCustomerId: string | null;
  email: string | null;
  name: string | null;
}

/** Subscription states the providers report, already mapped to license statuses. */
export type SubscriptionStatus = 'active' | 'past_due' | 'canceled' | 'suspended' | 'expired';

/** customer.created / customer.updated: map a provider customer ID to an e-mail; no license change. */
export interface CustomerUpsertedCommand extends CommandBase {
  kind: 'customer_upserted';
  customer: { providerCustomerId: string; email: string; name: string | null };
}

/** A one-time purchase (no subscription): creates a perpetual license for the mapped plan. */
export interface PurchaseCompletedCommand extends CommandBase {
  kind: 'purchase_completed';
  customer: CustomerRef;
  /** Transaction (provider_a) or order (provider_b) ID; refunds refer to it. */
  orderId: string;
  /** Price ID (provider_a) or variant ID (provider_b), looked up in the price map. */
  priceId: string;
  quantity: number;
}

/** A subscription payment: finds or creates the license, sets `paidUntil` and seats, status active. */
export interface SubscriptionPaidCommand extends CommandBase {
  kind: 'subscription_paid';
  customer: CustomerRef;
  subscriptionId: string;
  orderId: string | null;
  /** null when the event names no price: the plan stays as it is. */
  priceId: string | null;
  /** null when the event names no quantity: seats stay as they are. */
  quantity: number | null;
  /** End of the paid billing period. */
  paidUntil: string;
}

/** A subscription status event (activated, past_due, canceled, paused, resumed, updated, ...). */
export interface SubscriptionChangedCommand extends CommandBase {
  kind: 'subscription_changed';
  customer: CustomerRef;
  subscriptionId: string;
  status: SubscriptionStatus;
  /** null when the event names no (mapped) price: the plan stays as it is. */
  priceId: string | null;
  quantity: number | null;
  /**
   * End of the current billing period when the event carries one. Used only when this event
   * creates the license (provider_b `subscription_created`); status events change no dates.
   */
  currentPeriodEnd: string | null;
}

/** A refund. Only a full refund changes the license (to `refunded`); a partial one changes nothing. */
export interface RefundedCommand extends CommandBase {
  kind: 'refunded';
  subscriptionId: string | null;
  orderId: string | null;
  full: boolean;
}

/** A chargeback: the license is revoked, for good. */
export interface ChargebackCommand extends CommandBase {
  kind: 'chargeback';
  subscriptionId: string | null;
  orderId: string | null;
}

/** An event that is verified and recorded but changes nothing (unknown type, credit, pending refund). */
export interface IgnoredCommand extends CommandBase {
  kind: 'ignored';
  reason: string;
}

export type PaymentCommand =
  | CustomerUpsertedCommand
  | PurchaseCompletedCommand
  | SubscriptionPaidCommand
  | SubscriptionChangedCommand
  | RefundedCommand
  | ChargebackCommand
  | IgnoredCommand;
