import * as v from 'valibot';
import { LICENSE_STATUSES } from '@svc-licensing/cert-format';
import type * as engine from '@svc-licensing/license-engine';
import type { Principal } from './auth.js';
import { int, listOf, ts, view } from './contract.js';

/**
 * The response bodies of the API as valibot schemas, for the OpenAPI document: each is declared
 * with the engine's view type it describes (or the server's, for answers the server composes), so
 * the typecheck fails when they drift apart. Strict objects: a body has these fields and no other.
 */

type Returns<K extends keyof engine.LicenseEngine> = Awaited<ReturnType<engine.LicenseEngine[K]>>;

const nullableInt = v.nullable(int);
// The engine's enums (the typecheck holds each view, and so each list, equal to the engine's types).
export const provider = v.picklist(['provider_a', 'provider_b']);
export const environment = v.picklist(['sandbox', 'live']);
export const licenseStatus = v.picklist(LICENSE_STATUSES);
export const signingKeyStatus = v.picklist(['pending', 'active', 'retired']);
export const planKind = v.picklist(['subscription', 'perpetual', 'trial']);
export const seatMode = v.picklist(['machine', 'floating']);
export const leaseState = v.picklist(['live', 'borrowed', 'lapsed']);
export const locale = v.picklist(['en', 'fr']);
export const role = v.picklist(['owner', 'member']);
/** Who did something (an API key's creator, an audit event's actor). */
export const actor = view<engine.Actor>()(v.strictObject({
  kind: v.picklist(['owner', 'member', 'api_key', 'operator', 'customer']), email: v.nullable(v.string()), apiKeyId: v.nullable(v.string()),
}));
export const customerPortal = v.variant('mode', [
  v.strictObject({ mode: v.literal('svc') }),
  v.strictObject({ mode: v.literal('custom'), url: v.string() }),
  v.strictObject({ mode: v.literal('none') }),
]);

export { listOf };

/** The spec's error body; each operation's answer names the codes of its status (openapi.ts). */
export const ErrorView = v.strictObject({ error: v.strictObject({ code: v.string(), message: v.string() }) });

export const ProductView = view<engine.ProductView>()(v.strictObject({
  id: v.string(), name: v.string(), keyPrefix: v.string(), graceDays: int, offlineDays: int, createdAt: ts,
}));
export const SigningKeyView = view<engine.SigningKeyView>()(v.strictObject({
  kid: v.string(), publicKey: v.string(), status: signingKeyStatus, createdAt: ts, activatedAt: v.nullable(ts),
}));
export const SigningKeyExportView = view<engine.SigningKeyExport>()(v.strictObject({
  format: v.literal('svc-signing-keys-v1'), exportedAt: ts, product: v.strictObject({ id: v.string(), name: v.string(), keyPrefix: v.string() }),
  certificateFormat: v.literal('CRT1'),
  keys: v.array(v.strictObject({
    kid: v.string(), status: signingKeyStatus, publicKey: v.string(), privateKey: v.string(), privateKeyPkcs8: v.string(),
    createdAt: ts, activatedAt: v.nullable(ts),
  })),
}));
export const PlanView = view<engine.PlanView>()(v.strictObject({
  id: v.string(), product: v.string(), code: v.string(), name: v.string(), kind: planKind, maxActivations: int, entitlements: v.array(v.string()),
  maxMajor: nullableInt, trialDays: int, offlineDays: nullableInt, seatMode, leaseSeconds: nullableInt, maxBorrowDays: nullableInt,
  maxBorrowedSeats: nullableInt, createdAt: ts, updatedAt: ts,
}));
export const ActivationView = view<engine.ActivationView>()(v.strictObject({
  id: v.string(), fingerprint: v.string(), name: v.nullable(v.string()), platform: v.nullable(v.string()), appVersion: v.nullable(v.string()),
  createdAt: ts, lastSeenAt: ts, leaseExpiresAt: v.nullable(ts), borrowedUntil: v.nullable(ts), leaseState: v.nullable(leaseState),
}));
const licenseFields = {
  id: v.string(), product: v.string(), plan: v.string(), planId: v.string(), planName: v.string(),
  customer: v.strictObject({ id: v.string(), email: v.string(), name: v.string() }),
  status: licenseStatus, seats: int, maxActivations: nullableInt, activationLimit: int, maxMajor: nullableInt, entitlements: v.array(v.string()),
  paidUntil: v.nullable(ts), validUntil: v.nullable(ts), provider: v.nullable(provider), activationCount: int, seatMode,
  liveLeases: nullableInt, borrowedLeases: nullableInt, createdAt: ts, updatedAt: ts,
};
export const LicenseView = view<engine.LicenseView>()(v.strictObject(licenseFields));
export const LicenseDetailView = view<engine.LicenseDetailView>()(v.strictObject({ ...licenseFields, key: v.string(), activations: v.array(ActivationView) }));
/** `POST /licenses/{id}/send-key`: the license and the customer portal the e-mail links to. */
export const LicenseSentView = view<engine.LicenseView & { portalUrl: string | null }>()(
  v.strictObject({ ...licenseFields, portalUrl: v.nullable(v.string()) }),
);
export const OfflineActivationView = view<engine.OfflineActivationResult>()(v.strictObject({
  certificate: v.string(), activation: v.string(), license: v.string(), product: v.string(), fingerprint: v.string(),
}));
const customerFields = { id: v.string(), email: v.string(), name: v.string(), licenseCount: int };
export const CustomerView = view<engine.CustomerView>()(v.strictObject(customerFields));
export const CustomerDetailView = view<engine.CustomerDetailView>()(v.strictObject({ ...customerFields, licenses: v.array(LicenseView) }));
/** An integration with `webhookUrl`, the address to paste into the provider (added by the server). */
export const IntegrationView = view<engine.IntegrationView & { webhookUrl: string }>()(v.strictObject({
  id: v.string(), provider, product: v.string(), environment, priceMap: v.record(v.string(), v.string()),
  hasWebhookSecret: v.boolean(), hasApiKey: v.boolean(),
  warnings: v.pipe(
    v.array(v.strictObject({ code: v.picklist(['unknown_plan_code', 'api_key_unused']), message: v.string() })),
    v.description("What keeps the integration from working as set up (a price map naming a plan the product does not have, an API key this server cannot use); empty when nothing does"),
  ),
  webhookUrl: v.string(),
}));
export const DeletedView = view<{ id: string; deleted: true }>()(v.strictObject({ id: v.string(), deleted: v.literal(true) }));
const apiKeyFields = { id: v.string(), name: v.string(), prefix: v.string(), lastUsedAt: v.nullable(ts), createdAt: ts, createdBy: v.nullable(actor) };
export const ApiKeyView = view<engine.ApiKeyView>()(v.strictObject(apiKeyFields));
export const ApiKeyCreatedView = view<engine.ApiKeyCreatedView>()(v.strictObject({ ...apiKeyFields, key: v.string() }));
export const AccountView = view<engine.AccountView>()(v.strictObject({
  id: v.string(), name: v.string(), ownerEmail: v.string(), plan: v.string(), portalUrl: v.nullable(v.string()), senderName: v.nullable(v.string()),
  senderEmail: v.nullable(v.string()), replyTo: v.nullable(v.string()), defaultLocale: locale, customerPortal,
  portalReleaseLimit: int, status: v.picklist(['open', 'closed']), closedAt: v.nullable(ts), createdAt: ts,
}));
/** `POST /v1/account/owner-email`: where the confirmation link went and until when it works. */
export const OwnerEmailChangeView = view<{ email: string; expiresAt: engine.IssuedLink['expiresAt'] }>()(v.strictObject({ email: v.string(), expiresAt: ts }));
export const UsageView = view<engine.UsageView>()(v.strictObject({
  plan: v.string(), activeLicenses: int, licenseLimit: nullableInt, products: int, productLimit: nullableInt, overLimit: v.boolean(),
}));
export const BillingView = view<engine.BillingView>()(v.strictObject({
  plan: v.string(), interval: v.nullable(v.literal('month')), status: v.picklist(['active', 'canceled']),
  currentPeriodEnd: v.nullable(ts), cancelAt: v.nullable(ts),
}));
export const SenderDomainView = view<engine.SenderDomainView>()(v.strictObject({
  domain: v.nullable(v.string()),
  status: v.picklist(['none', 'pending', 'verified', 'failed']),
  senderEmail: v.nullable(v.string()),
  records: v.array(v.strictObject({
    purpose: v.picklist(['ownership', 'spf', 'dkim']), type: v.literal('TXT'), name: v.string(), value: v.string(), verified: v.nullable(v.boolean()),
  })),
  createdAt: v.nullable(ts), checkedAt: v.nullable(ts), verifiedAt: v.nullable(ts),
}));
export const auditEventType = v.picklist([
  'license.created', 'license.status_changed', 'license.updated', 'activation.created', 'activation.deleted', 'webhook.received',
  'signing_key.created', 'signing_key.rotated', 'signing_key.exported', 'account.plan_changed', 'sender_domain.claimed',
  'sender_domain.checked', 'sender_domain.released', 'account.exported', 'account.imported', 'account.owner_email_changed',
  'lease.expired', 'lease.borrowed', 'lease.returned',
]);
/** Every type `GET /events` lists: the notification types, and the security actions (issue 25), which are never notified. */
export const eventType = v.picklist([
  ...auditEventType.options,
  'api_key.created', 'api_key.revoked', 'member.invited', 'member.removed', 'session.signed_in', 'session.revoked', 'account.updated', 'portal.key_revealed',
] satisfies engine.AuditEventType[]);
export const EventView = view<engine.AuditEventView>()(v.strictObject({
  id: v.string(), type: eventType, license: v.nullable(v.string()), data: v.record(v.string(), v.unknown()), createdAt: ts,
  actor: v.nullable(actor),
}));

// Notifications to the vendor (issue 28)
const endpointFields = {
  id: v.string(), url: v.string(), description: v.string(), events: v.array(auditEventType), enabled: v.boolean(),
  disabledReason: v.nullable(v.picklist(['gone', 'failing', 'secret_unreadable'])), previousSecretExpiresAt: v.nullable(ts), createdAt: ts, updatedAt: ts,
};
export const WebhookEndpointView = view<engine.WebhookEndpointView>()(v.strictObject(endpointFields));
/** Creation and `rotate-secret`: the endpoint with its signing secret, shown this once. */
export const WebhookEndpointSecretView = view<engine.WebhookEndpointSecretView>()(v.strictObject({ ...endpointFields, secret: v.string() }));
export const DeliveryAttemptView = view<engine.DeliveryAttemptView>()(v.strictObject({
  at: v.string(), status: v.nullable(int), latencyMs: int, ok: v.boolean(), error: v.nullable(v.string()), message: v.nullable(v.string()),
  response: v.string(),
}));
export const NotificationDeliveryView = view<engine.NotificationDeliveryView>()(v.strictObject({
  id: v.string(), endpoint: v.string(), type: v.string(), event: v.nullable(v.string()), status: v.picklist(['pending', 'delivered', 'failed']),
  attempts: v.array(DeliveryAttemptView), nextAttemptAt: v.nullable(v.string()), createdAt: ts,
}));

/** A row of an integration's incoming delivery log: alike deliveries within a minute, with their count. */
export const IncomingDeliveryView = view<engine.IncomingDeliveryView>()(v.strictObject({
  id: v.string(), integration: v.string(), result: v.picklist(['processed', 'duplicate', 'ignored', 'refused']), status: int,
  reason: v.nullable(v.picklist([
    'missing_secret', 'missing_header', 'malformed_header', 'timestamp_out_of_range', 'signature_mismatch', 'body_too_large', 'unreadable_body',
    'key_email_in_progress', 'conflict', 'rate_limited', 'customer_unknown', 'error',
  ])),
  message: v.string(), eventType: v.nullable(v.string()), eventId: v.nullable(v.string()), count: int, firstAt: ts, lastAt: ts,
}));

// Client API
/** The `lease` of a client answer on a floating plan (docs/floating-seats.md). */
const leaseAnswer = view<engine.LeaseAnswer>()(v.strictObject({ leaseSeconds: int, leaseExpiresAt: ts, borrowedUntil: v.nullable(ts) }));
/** The product's revocation list seq (docs/rvl1.md): an SDK holding an older list, or none, fetches GET /v1/products/{id}/revocations. */
const revocationListSeq = v.pipe(v.number(), v.integer(), v.minValue(0), v.description('The product\'s current revocation list seq (RVL1, docs/rvl1.md), 0 while it has none: a client holding an older list fetches GET /v1/products/{id}/revocations'));
export const ActivateResultView = view<Returns<'activate'>>()(v.strictObject({ certificate: v.string(), activation: v.string(), lease: v.exactOptional(leaseAnswer), revocationListSeq }));
export const ValidateResultView = view<Returns<'validate'>>()(v.strictObject({ certificate: v.string(), lease: v.exactOptional(leaseAnswer), revocationListSeq }));
export const BorrowResultView = view<Returns<'borrow'>>()(v.strictObject({ certificate: v.string(), activation: v.string(), lease: leaseAnswer }));
export const DeactivateResultView = view<Returns<'deactivate'>>()(v.strictObject({ deactivated: v.literal(true) }));

// Meta
export const HealthView = view<{ status: 'ok' }>()(v.strictObject({ status: v.literal('ok') }));
export const ReadyView = view<{ status: 'ready' }>()(v.strictObject({ status: v.literal('ready') }));

// Dashboard sign-in, sessions, members
type SessionCaller = Extract<Principal, { kind: 'session' }>;
type ApiKeyCaller = Extract<Principal, { kind: 'api_key' }>;
/** `GET /v1/session`: the same fields for both kinds of caller, null where a kind has none. */
export const PrincipalView = view<(SessionCaller & { apiKeyId: null }) | (ApiKeyCaller & { email: null; role: null; sessionId: null })>()(
  v.variant('kind', [
    v.strictObject({ kind: v.literal('session'), accountId: v.string(), email: v.string(), role, sessionId: v.string(), apiKeyId: v.null() }),
    v.strictObject({ kind: v.literal('api_key'), accountId: v.string(), email: v.null(), role: v.null(), sessionId: v.null(), apiKeyId: v.string() }),
  ]),
);
/** A session as the owner lists it, with `current`: whether it is the caller's own. */
export const SessionView = view<engine.SessionView & { current: boolean }>()(v.strictObject({
  id: v.string(), email: v.string(), role, createdAt: ts, lastSeenAt: ts, expiresAt: ts, current: v.boolean(),
}));
export const MemberView = view<engine.MemberView>()(v.strictObject({ id: v.string(), email: v.string(), role: v.literal('member'), createdAt: ts }));
export const AcceptedView = view<{ accepted: true }>()(v.strictObject({ accepted: v.literal(true) }));
export const SignedOutView = view<{ signedOut: true }>()(v.strictObject({ signedOut: v.literal(true) }));

// Customer portal
export const PortalView = view<Returns<'getPortal'>>()(v.strictObject({ accountId: v.string(), accountName: v.string(), supportEmail: v.string() }));
export const PortalCustomerView = view<Pick<engine.CustomerPrincipal, 'email' | 'accountId' | 'expiresAt'>>()(
  v.strictObject({ email: v.string(), accountId: v.string(), expiresAt: ts }),
);
const portalLicenseFields = {
  id: v.string(), product: v.strictObject({ id: v.string(), name: v.string() }), plan: v.strictObject({ code: v.string(), name: v.string() }),
  status: licenseStatus, validUntil: v.nullable(ts), seats: int, activationLimit: int, activationCount: int, seatMode,
  liveLeases: nullableInt, borrowedLeases: nullableInt,
};
export const PortalLicenseView = view<engine.PortalLicenseView>()(v.strictObject(portalLicenseFields));
export const PortalLicenseListView = view<Returns<'listPortalLicenses'>>()(v.strictObject({ data: v.array(PortalLicenseView) }));
/** A machine as the portal shows it: never its fingerprint. */
export const PortalActivationView = view<engine.PortalActivationView>()(v.strictObject({
  id: v.string(), name: v.nullable(v.string()), platform: v.nullable(v.string()), appVersion: v.nullable(v.string()), createdAt: ts, lastSeenAt: ts,
  leaseExpiresAt: v.nullable(ts), borrowedUntil: v.nullable(ts), leaseState: v.nullable(leaseState),
}));
export const PortalLicenseDetailView = view<engine.PortalLicenseDetail>()(v.strictObject({
  ...portalLicenseFields, activations: v.array(PortalActivationView), releasesLeft: int, releaseLimit: int,
}));
export const PortalKeyView = view<Returns<'revealPortalKey'>>()(v.strictObject({ id: v.string(), key: v.string() }));
export const SentView = view<{ sent: true }>()(v.strictObject({ sent: v.literal(true) }));
export const ReleasedView = view<Returns<'releasePortalActivation'>>()(v.strictObject({ released: v.literal(true), license: v.string(), releasesLeft: int }));

// Webhook receiver
/** The receiver's answer to a delivery it took (`WebhookReply` of routes/webhooks.ts; the test types hold them equal). */
export const WebhookReplyView = v.strictObject({
  result: v.picklist(['processed', 'duplicate', 'ignored']), detail: v.string(), keyEmail: v.exactOptional(v.picklist(['sent', 'failed'])),
});
