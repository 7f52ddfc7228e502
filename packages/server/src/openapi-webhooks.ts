import * as v from 'valibot';
import { ts } from './http/contract.js';
import * as views from './http/views.js';

type JsonObject = Record<string, unknown>;

/**
 * The OpenAPI 3.1 `webhooks` of the document: every notification type with its body, the POST
 * the service sends to a vendor's endpoint (issue 28). `data` is the resource's API view plus
 * `event`, the audit event it tells about.
 */

// Notifications carry the integration without the answer-time fields (`webhookUrl`, `warnings`).
const { webhookUrl: _added, warnings: _told, ...integration } = views.IntegrationView.entries;
const PAYLOADS: Record<string, { summary: string; entries: v.ObjectEntries }> = {
  'license.created': { summary: 'A license was created (by the API or a purchase)', entries: views.LicenseView.entries },
  'license.status_changed': { summary: 'A license changed status (a payment, a refund, a chargeback, the vendor)', entries: views.LicenseView.entries },
  'license.updated': { summary: 'The vendor changed a license (seats, paidUntil, limits)', entries: views.LicenseView.entries },
  'activation.created': { summary: 'A machine was activated on a license', entries: views.ActivationView.entries },
  'activation.deleted': { summary: 'A machine was freed (by the client, the vendor or the portal)', entries: views.ActivationView.entries },
  'webhook.received': { summary: "A payment provider's delivery was processed or refused (the integration, without webhookUrl and warnings)", entries: integration },
  'signing_key.created': { summary: 'A signing key was created (pending)', entries: views.SigningKeyView.entries },
  'signing_key.rotated': { summary: 'A signing key became active (the previous one retired)', entries: views.SigningKeyView.entries },
  'signing_key.exported': { summary: "A product's signing keys were exported (the product)", entries: views.ProductView.entries },
  'account.plan_changed': { summary: "The account's service plan changed", entries: views.AccountView.entries },
  'sender_domain.claimed': { summary: 'A sender domain was claimed', entries: views.SenderDomainView.entries },
  'sender_domain.checked': { summary: "A sender domain's check changed its status", entries: views.SenderDomainView.entries },
  'sender_domain.released': { summary: 'A sender domain was released', entries: views.SenderDomainView.entries },
  'account.exported': { summary: 'The account was exported', entries: views.AccountView.entries },
  'account.imported': { summary: 'The account was imported', entries: views.AccountView.entries },
  'account.owner_email_changed': { summary: "The owner confirmed a new owner address (data.event.data: from, to)", entries: views.AccountView.entries },
  'lease.expired': {
    summary: "A floating seat's lease lapsed (the activation; data.event.data: activation, fingerprint, leaseExpiresAt). Recorded once per lapse, when first seen",
    entries: views.ActivationView.entries,
  },
  'lease.borrowed': { summary: 'A machine borrowed its floating seat, or extended a borrow (data.event.data: activation, fingerprint, borrowedUntil, days)', entries: views.ActivationView.entries },
  'lease.returned': {
    summary: 'A borrow ended early: the machine was freed, or the plan became a machine plan (data.event.data: activation, fingerprint, borrowedUntil, source)',
    entries: views.ActivationView.entries,
  },
};

const TEST_EVENT = v.strictObject({ id: v.string(), type: v.literal('webhook_endpoint.test'), license: v.null(), data: v.strictObject({}), createdAt: ts });

/** The body schema of a notification of `type`. */
export function notificationSchema(type: string): v.GenericSchema {
  const test = type === 'webhook_endpoint.test';
  const entries = test ? views.WebhookEndpointView.entries : PAYLOADS[type]!.entries;
  return v.strictObject({
    type: v.literal(type),
    timestamp: v.pipe(v.string(), v.description('When the event happened, ISO 8601 with milliseconds, UTC')),
    data: v.strictObject({ ...entries, event: test ? TEST_EVENT : views.EventView }),
  });
}

/** Every notification type: each audit event type, and the test notification. */
export const NOTIFICATION_TYPES: readonly string[] = [...Object.keys(PAYLOADS), 'webhook_endpoint.test'];

/** The document's `webhooks` object, with `convert` turning a schema into JSON Schema as the document's others are. */
export function webhooksSection(convert: (schema: v.GenericSchema) => JsonObject): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  for (const type of NOTIFICATION_TYPES) {
    const summary = type === 'webhook_endpoint.test' ? 'Sent by POST /v1/webhook-endpoints/{id}/test' : PAYLOADS[type]!.summary;
    out[type] = {
      post: {
        summary,
        description:
          'Signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature); verify with the standardwebhooks package. ' +
          'Answer any 2xx within 10 s; 410 disables the endpoint; anything else is retried for 3 days. See docs/notifications.md.',
        requestBody: { required: true, content: { 'application/json': { schema: convert(notificationSchema(type)) } } },
        responses: { '200': { description: 'Any 2xx: received' }, '410': { description: 'Gone: the endpoint is disabled' } },
      },
    };
  }
  return out;
}
