/**
 * The dashboard's endpoints of the public API (`<prefix>/v1/` next to `<prefix>/dashboard/`, with
 * the session cookie): one typed function per call, bound to its method, path, request and answer.
 * Pages call these, never the client.
 */
import { createApiClient, path } from '../ui/api.js';
import { loadAll } from '../ui/paging.js';
import type {
  Actor,
  AcceptedView,
  AccountPatch,
  AccountView,
  ApiKeyCreatedView,
  ApiKeyView,
  AuditEventView,
  BillingView,
  CreateApiKeyInput,
  CreateIntegrationInput,
  CreateLicenseInput,
  CreatePlanInput,
  CreateProductInput,
  CreateWebhookEndpointInput,
  CustomerDetailView,
  CustomerView,
  DeletedView,
  IncomingDeliveryView,
  IntegrationWithUrl,
  KeySentView,
  LicenseDetailView,
  LicenseFilters,
  LicenseView,
  ListView,
  MemberView,
  NotificationDeliveryView,
  OfflineActivationInput,
  OfflineActivationResult,
  PlanView,
  Principal,
  ProductView,
  SenderDomainView,
  SessionListItem,
  SignedOutView,
  SigningKeyView,
  UpdateIntegrationInput,
  UpdateLicenseInput,
  UpdatePlanInput,
  UpdateProductInput,
  UpdateWebhookEndpointInput,
  UsageView,
  WebhookEndpointSecretView,
  WebhookEndpointView,
} from '../ui/types.js';

const client = createApiClient({ base: () => new URL('../v1/', document.baseURI) });

/** Calls `listener` when the API answers 401 (the session ended or was revoked); returns the unsubscribe. */
export const onSignedOut = client.onSignedOut;

/** A list's cursor (absent or null: the first page). */
export interface PageQuery {
  cursor?: string | null;
}

/** `GET /v1/customers`. */
export interface CustomerQuery extends PageQuery {
  q?: string;
}

/** `GET /v1/events`: of one license, or all; of one kind of actor, or all. */
export interface EventQuery extends PageQuery {
  license?: string;
  actor?: Actor['kind'];
}

const session = {
  get: () => client.get<Principal>('session'),
  signOut: () => client.del<SignedOutView>('session'),
  requestLink: (email: string) => client.post<AcceptedView>('session/link', { email }),
  /** The account's signed-in sessions (owner). */
  list: (query: PageQuery = {}) => client.get<ListView<SessionListItem>>('sessions', query),
  end: (id: string) => client.del<DeletedView>(path`sessions/${id}`),
};

const account = {
  get: () => client.get<AccountView>('account'),
  update: (patch: AccountPatch) => client.patch<AccountView>('account', patch),
  /** Asks to change the owner address (owner): a confirmation link is e-mailed to it; nothing changes until it is used. */
  changeOwnerEmail: (email: string) => client.post<{ email: string; expiresAt: string }>('account/owner-email', { email }),
  close: () => client.post<AccountView>('account/close'),
  usage: () => client.get<UsageView>('account/usage'),
  billing: () => client.get<BillingView>('account/billing'),
  /** The `svc-account-export-v1` document (owner). */
  export: () => client.download('account/export'),
};

const senderDomain = {
  get: () => client.get<SenderDomainView>('account/sender-domain'),
  claim: (domain: string) => client.post<SenderDomainView>('account/sender-domain', { domain }),
  verify: () => client.post<SenderDomainView>('account/sender-domain/verify'),
  release: () => client.del<SenderDomainView>('account/sender-domain'),
};

const apiKeys = {
  list: (query: PageQuery = {}) => client.get<ListView<ApiKeyView>>('api-keys', query),
  create: (input: CreateApiKeyInput) => client.post<ApiKeyCreatedView>('api-keys', input),
  revoke: (id: string) => client.del<DeletedView>(path`api-keys/${id}`),
};

const members = {
  list: (query: PageQuery = {}) => client.get<ListView<MemberView>>('members', query),
  invite: (email: string) => client.post<MemberView>('members', { email }),
  remove: (id: string) => client.del<MemberView>(path`members/${id}`),
};

const products = {
  list: (query: PageQuery = {}) => client.get<ListView<ProductView>>('products', query),
  /** Every product, page after page (for choosers). */
  all: () => loadAll((cursor) => products.list({ cursor })),
  create: (input: CreateProductInput) => client.post<ProductView>('products', input),
  get: (id: string) => client.get<ProductView>(path`products/${id}`),
  update: (id: string, patch: UpdateProductInput) => client.patch<ProductView>(path`products/${id}`, patch),
};

const signingKeys = {
  list: (productId: string) => client.get<ListView<SigningKeyView>>(path`products/${productId}/keys`),
  /** Step 1 of a rotation: a pending key, published but signing nothing. */
  create: (productId: string) => client.post<SigningKeyView>(path`products/${productId}/keys`),
  activate: (productId: string, kid: string) => client.post<SigningKeyView>(path`products/${productId}/keys/${kid}/activate`),
  /** The `svc-signing-keys-v1` document with the private keys (owner). */
  export: (productId: string) => client.download(path`products/${productId}/keys/export`),
};

const revocations = {
  /** The product's current signed revocation list (`RVL1.<payload>.<signature>` and a newline, docs/rvl1.md), as served. */
  get: (productId: string) => client.getText(path`products/${productId}/revocations`),
};

const plans = {
  list: (productId: string, query: PageQuery = {}) => client.get<ListView<PlanView>>(path`products/${productId}/plans`, query),
  /** Every plan of the product. */
  all: (productId: string) => loadAll((cursor) => plans.list(productId, { cursor })),
  create: (productId: string, input: CreatePlanInput) => client.post<PlanView>(path`products/${productId}/plans`, input),
  get: (id: string) => client.get<PlanView>(path`plans/${id}`),
  update: (id: string, patch: UpdatePlanInput) => client.patch<PlanView>(path`plans/${id}`, patch),
};

const licenses = {
  list: (query: LicenseFilters) => client.get<ListView<LicenseView>>('licenses', query),
  create: (input: CreateLicenseInput) => client.post<LicenseDetailView>('licenses', input),
  get: (id: string) => client.get<LicenseDetailView>(path`licenses/${id}`),
  update: (id: string, patch: UpdateLicenseInput) => client.patch<LicenseView>(path`licenses/${id}`, patch),
  suspend: (id: string) => client.post<LicenseView>(path`licenses/${id}/suspend`),
  reinstate: (id: string) => client.post<LicenseView>(path`licenses/${id}/reinstate`),
  revoke: (id: string) => client.post<LicenseView>(path`licenses/${id}/revoke`),
  sendKey: (id: string) => client.post<KeySentView>(path`licenses/${id}/send-key`),
};

const activations = {
  /** Frees the machine; answers its license. */
  release: (id: string) => client.del<LicenseView>(path`activations/${id}`),
  activateOffline: (input: OfflineActivationInput) => client.post<OfflineActivationResult>('activations/offline', input),
};

const customers = {
  list: (query: CustomerQuery) => client.get<ListView<CustomerView>>('customers', query),
  get: (id: string) => client.get<CustomerDetailView>(path`customers/${id}`),
};

const events = {
  list: (query: EventQuery = {}) => client.get<ListView<AuditEventView>>('events', query),
};

const integrations = {
  list: (query: PageQuery = {}) => client.get<ListView<IntegrationWithUrl>>('integrations', query),
  all: () => loadAll((cursor) => integrations.list({ cursor })),
  get: (id: string) => client.get<IntegrationWithUrl>(path`integrations/${id}`),
  create: (input: CreateIntegrationInput) => client.post<IntegrationWithUrl>('integrations', input),
  update: (id: string, patch: UpdateIntegrationInput) => client.patch<IntegrationWithUrl>(path`integrations/${id}`, patch),
  remove: (id: string) => client.del<DeletedView>(path`integrations/${id}`),
  /** The incoming delivery log: every provider delivery to the integration, refused ones with their reason, newest first. */
  deliveries: (id: string, query: PageQuery = {}) => client.get<ListView<IncomingDeliveryView>>(path`integrations/${id}/deliveries`, query),
};

const webhookEndpoints = {
  list: (query: PageQuery = {}) => client.get<ListView<WebhookEndpointView>>('webhook-endpoints', query),
  /** Every endpoint (at most 10 per account). */
  all: () => loadAll((cursor) => webhookEndpoints.list({ cursor })),
  /** Registers an endpoint (owner); the answer holds its signing secret, shown this once. */
  create: (input: CreateWebhookEndpointInput) => client.post<WebhookEndpointSecretView>('webhook-endpoints', input),
  get: (id: string) => client.get<WebhookEndpointView>(path`webhook-endpoints/${id}`),
  update: (id: string, patch: UpdateWebhookEndpointInput) => client.patch<WebhookEndpointView>(path`webhook-endpoints/${id}`, patch),
  remove: (id: string) => client.del<WebhookEndpointView>(path`webhook-endpoints/${id}`),
  /** A new signing secret (owner), in this answer only; the old one signs beside it for 24 hours. */
  rotateSecret: (id: string) => client.post<WebhookEndpointSecretView>(path`webhook-endpoints/${id}/rotate-secret`),
  /** Queues a `webhook_endpoint.test` notification to the endpoint (owner). */
  test: (id: string) => client.post<NotificationDeliveryView>(path`webhook-endpoints/${id}/test`),
  /** The endpoint's delivery log, newest first, each notification with its attempts. */
  deliveries: (id: string, query: PageQuery = {}) => client.get<ListView<NotificationDeliveryView>>(path`webhook-endpoints/${id}/deliveries`, query),
  /** Sends a notification again now (owner), same `webhook-id` and body. */
  resend: (id: string, deliveryId: string) => client.post<NotificationDeliveryView>(path`webhook-endpoints/${id}/deliveries/${deliveryId}/resend`),
};

/** Every endpoint of the dashboard, by resource: `api.licenses.list(query)`, `api.account.get()`. */
export const api = { session, account, senderDomain, apiKeys, members, products, signingKeys, revocations, plans, licenses, activations, customers, events, integrations, webhookEndpoints };
