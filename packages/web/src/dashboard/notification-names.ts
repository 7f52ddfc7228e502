/**
 * Words for the notification pages (issue 28): the event types an endpoint can receive, what
 * became of a delivery, and why a provider's delivery was refused. Each table is a `Record` over
 * the engine's own union, so a new event type or reason fails the web typecheck until it is named.
 */
import type { IncomingDeliveryView, IncomingRefusalReason, NotificationDeliveryView, WebhookEndpointView, WebhookEventType } from '../ui/types.js';
import type { BadgeTone } from '../ui/components/layout.js';

/** Every event type an endpoint can receive, with what it means. */
export const EVENT_TYPE_LABEL: Readonly<Record<WebhookEventType, string>> = {
  'license.created': 'a license is created',
  'license.status_changed': 'a license is suspended, reinstated, revoked, refunded or expires',
  'license.updated': 'a license is changed',
  'activation.created': 'a machine is activated',
  'activation.deleted': 'a machine is freed',
  'webhook.received': 'a payment provider’s webhook is handled',
  'signing_key.created': 'a signing key is created',
  'signing_key.rotated': 'a signing key starts signing',
  'signing_key.exported': 'signing keys are exported',
  'account.plan_changed': 'the service plan changes',
  'sender_domain.claimed': 'a sender domain is claimed',
  'sender_domain.checked': 'a sender domain is checked',
  'sender_domain.released': 'a sender domain is released',
  'account.exported': 'the account is exported',
  'account.imported': 'the account is imported',
  'account.owner_email_changed': 'the owner address changes',
  'lease.expired': 'a floating seat’s lease lapses',
  'lease.borrowed': 'a machine borrows a floating seat',
  'lease.returned': 'a borrowed seat is returned early',
};

export const EVENT_TYPES = Object.keys(EVENT_TYPE_LABEL) as WebhookEventType[];

/** What an endpoint receives, in words. */
export function eventsOf(endpoint: Pick<WebhookEndpointView, 'events'>): string {
  return endpoint.events.length === 0 ? 'every event' : endpoint.events.join(', ');
}

const DISABLED: Readonly<Record<NonNullable<WebhookEndpointView['disabledReason']>, string>> = {
  gone: 'disabled: it answered 410 Gone',
  failing: 'disabled: 3 days without a success',
  secret_unreadable: 'disabled: its secret cannot be read; rotate it, then enable',
};

/** An endpoint's state: the word and its tone. */
export function endpointState(e: Pick<WebhookEndpointView, 'enabled' | 'disabledReason'>): [string, BadgeTone] {
  if (e.enabled) return ['enabled', 'good'];
  return e.disabledReason ? [DISABLED[e.disabledReason], 'bad'] : ['disabled', 'warn'];
}

export const DELIVERY_STATE: Readonly<Record<NotificationDeliveryView['status'], [string, BadgeTone]>> = {
  pending: ['pending', 'warn'],
  delivered: ['delivered', 'good'],
  failed: ['given up', 'bad'],
};

/** Why a provider's delivery was refused, in words a vendor setting up the provider can act on. */
export const REFUSAL_REASON: Readonly<Record<IncomingRefusalReason, string>> = {
  missing_secret: 'No signing secret is saved for this integration',
  missing_header: 'The signature header is missing',
  malformed_header: 'The signature header cannot be read',
  timestamp_out_of_range: 'The signed time is too far from now (an old delivery replayed, or a wrong clock)',
  signature_mismatch: 'Signature mismatch: it was not signed with the secret saved here',
  body_too_large: 'The body is too large',
  unreadable_body: 'The body cannot be read',
  key_email_in_progress: 'The license key e-mail was still being sent; the provider retries',
  conflict: 'A conflicting change was being made; the provider retries',
  rate_limited: 'Too many deliveries at once; the provider retries',
  customer_unknown: 'The customer could not be found at the provider',
  error: 'The service failed to handle it; the provider retries',
};

export const INCOMING_RESULT: Readonly<Record<IncomingDeliveryView['result'], [string, BadgeTone]>> = {
  processed: ['processed', 'good'],
  duplicate: ['duplicate (already handled)', 'neutral'],
  ignored: ['ignored (not an event we act on)', 'neutral'],
  refused: ['refused', 'bad'],
};
