/**
 * The shapes of the public `/v1` API the browser apps read and send. One source: the engine's view
 * and input types, imported type-only (esbuild erases them: no engine code reaches the bundles), so
 * a change of a view fails the web typecheck. Below them, the few answers the server builds around
 * an engine view (a URL it adds, the caller's own session), each written as that view plus the
 * added fields, or as the return type of the engine operation the route answers with.
 */

import type { LicenseEngine, SessionPrincipal, CustomerPrincipal, ApiKeyView, IntegrationView, IncomingDeliveryView, LicenseView, SessionView, AccountView, WebhookEndpointView } from '@svc-licensing/license-engine';

export type { LicenseStatus } from '@svc-licensing/cert-format';
export type {
  AccountView,
  ActivationView,
  Actor,
  ApiKeyCreatedView,
  ApiKeyView,
  AuditEventView,
  BillingView,
  CreateIntegrationInput,
  CreateLicenseInput,
  CreateWebhookEndpointInput,
  DeliveryAttemptView,
  IncomingDeliveryView,
  CreatePlanInput,
  CreateProductInput,
  CustomerDetailView,
  CustomerView,
  LicenseDetailView,
  LicenseFilters,
  LicenseView,
  ListView,
  MemberView,
  OfflineActivationInput,
  OfflineActivationResult,
  PlanView,
  PortalActivationView,
  PortalLicenseDetail,
  PortalLicenseView,
  ProductView,
  SenderDomainView,
  SessionView,
  SigningKeyView,
  UpdateIntegrationInput,
  UpdateLicenseInput,
  UpdatePlanInput,
  UpdateWebhookEndpointInput,
  UsageView,
  NotificationDeliveryView,
  WebhookEndpointSecretView,
  WebhookEndpointView,
} from '@svc-licensing/license-engine';

/** What an engine operation answers (for routes that answer it unchanged but whose type has no name). */
type Answer<K extends keyof LicenseEngine> = Awaited<ReturnType<LicenseEngine[K]>>;

/** `GET /v1/session`: who is calling, a signed-in session or an API key. */
export type Principal =
  | ({ kind: 'session'; apiKeyId: null } & Pick<SessionPrincipal, 'accountId' | 'sessionId' | 'email' | 'role'>)
  | { kind: 'api_key'; accountId: string; email: null; role: null; sessionId: null; apiKeyId: string };

/** The dashboard's signed-in caller. */
export type SignedInPrincipal = Extract<Principal, { kind: 'session' }>;

/** `GET /v1/sessions` (owner): a session, and whether it is the caller's own. */
export type SessionListItem = SessionView & { current: boolean };

/** An integration as the API shows it: with the URL to give the provider for webhooks. */
export type IntegrationWithUrl = IntegrationView & { webhookUrl: string };

/** `POST /v1/licenses/{id}/send-key`: the license, and the customer portal the e-mail links to (null without one). */
export type KeySentView = LicenseView & { portalUrl: string | null };

/** `PATCH /v1/account`: the fields a vendor may change. */
export type AccountPatch = Partial<Pick<AccountView, 'name' | 'senderName' | 'senderEmail' | 'replyTo' | 'defaultLocale' | 'customerPortal' | 'portalReleaseLimit'>>;

/** `POST /v1/api-keys`. */
export type CreateApiKeyInput = Pick<ApiKeyView, 'name'>;

/** `PATCH /v1/products/{id}`. */
export type UpdateProductInput = Parameters<LicenseEngine['updateProduct']>[2];

/** The answers that only say what happened. */
export interface DeletedView {
  id: string;
  deleted: true;
}
export interface AcceptedView {
  accepted: true;
}
export interface SignedOutView {
  signedOut: true;
}

/** `GET /v1/portal/{accountId}`: the portal's public facts. */
export type PortalFacts = Answer<'getPortal'>;

/** `GET /v1/portal/{accountId}/session`: the signed-in customer. */
export type PortalSessionView = Omit<CustomerPrincipal, 'sessionId'>;

/** `POST /v1/portal/{accountId}/licenses/{id}/key`. */
export type RevealedKeyView = Answer<'revealPortalKey'>;

/** `DELETE /v1/portal/{accountId}/activations/{id}`: how many more releases the license has in 30 days. */
export type PortalReleaseView = Answer<'releasePortalActivation'>;

/** An event type a webhook endpoint can receive (every audit event type). */
export type WebhookEventType = WebhookEndpointView['events'][number];

/** Why an incoming provider delivery was refused (`signature_mismatch`, ...). */
export type IncomingRefusalReason = NonNullable<IncomingDeliveryView['reason']>;
