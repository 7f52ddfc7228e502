export type * from './_internal/records.js';
export type { Store, StoreTx, Where, ReadOptions, WriteOptions, PageQuery, Page, TransactionOptions, ClientLicenseQuery, ClientLicenseRecords, ProviderCustomerQuery, ProviderCustomerRecords } from './_internal/store.js';
export { StoreConflictError, storeSchema } from './_internal/store.js';
export type * from './_internal/commands.js';
export { LicensingError } from './_internal/errors.js';
export type { LicensingErrorCode } from './_internal/errors.js';
export type { Clock, Random, IdGenerator, IdPrefix, SecretBox, SealPurpose, SealedFor, DnsResolver } from './_internal/ports.js';

export { createLicenseEngine } from './engine.js';
export type { LicenseEngine, LicenseEngineDeps } from './engine.js';
export { createMemoryStore } from './adapters/memory-store.js';
export { systemClock } from './adapters/clock.js';
export { isTimestamp } from './_internal/timestamp.js';
export { cryptoRandom } from './adapters/random.js';
export { createIdGenerator } from './adapters/ids.js';
export { createSecretBox } from './adapters/secret-box.js';
export { DEFAULT_SERVICE_PLANS } from './_internal/service-plans.js';
export type { ServicePlan, ServicePlanTable } from './_internal/service-plans.js';
export { CLOSURE_DAYS } from './_internal/account.js';
export { SESSION_LIFETIMES } from './sessions/operator.js';
export { sealOperatorReopenLink, sealOperatorSignInLink } from './sessions/operator-link.js';
export type { PurgeResult } from './accounts/purge.js';
export type { IssuedLink } from './sessions/links.js';
export type { LinkOutcome, SessionPrincipal } from './sessions/operator.js';
export { OWNER_EMAIL_LINK_MS } from './accounts/owner-email.js';
export type { OwnerEmailOutcome } from './accounts/owner-email.js';
export { PRODUCT_DEFAULTS } from './catalog/products.js';
export { PLAN_DEFAULTS } from './catalog/plans.js';
export { FLOATING_DEFAULTS, LEASE_SECONDS_RANGE } from './_internal/plan-seats.js';
export { EXPORTS_PER_HOUR } from './catalog/signing-keys.js';
export type { SigningKeyExport } from './catalog/signing-keys.js';
export { KEY_EMAIL_RESERVATION_MS } from './mail/key-email.js';
export type { KeyEmail } from './mail/key-email.js';
export type { DkimSigning } from './mail/sender-domains.js';
export { ACCOUNT_EXPORT_FORMAT, ACCOUNT_EXPORT_PAGE_SIZE } from './accounts/export.js';
export type { AccountExportItem, AccountImportInput, AccountImportResult } from './accounts/import.js';
export type {
  AccountExport, AccountExportDocument, ExportedLicense, ExportedSigningKey, ExportedIntegration, ExportedApiKey, ExportedSenderDomain,
} from './accounts/export.js';
export { OWNERSHIP_RECORD_LABEL, DEFAULT_SENDER_LOCAL_PART } from './_internal/sender-domain.js';
export type { SenderDomainDnsRecord } from './_internal/views.js';
export type { PaymentApplied, PaymentOptions, PaymentRefusalCode, PaymentRefused, PaymentResult } from './payments/result.js';
export type { RejectedWebhook } from './payments/rejected.js';
export { INCOMING_DELIVERY_RETENTION_DAYS } from './payments/incoming-log.js';
export { REVOCATION_ENTRY_DAYS } from './_internal/revocations.js';
export type { RevocationListText } from './_internal/revocations.js';
export type { IncomingDeliveryEntry, IncomingDeliveryView } from './_internal/incoming.js';
export type { CreateProductInput } from './catalog/products.js';
export type { CreatePlanInput, UpdatePlanInput } from './catalog/plans.js';
export type { CreateLicenseInput, UpdateLicenseInput, LicenseFilters } from './licenses/licenses.js';
export type { CreateIntegrationInput, UpdateIntegrationInput } from './payments/integrations.js';
export { LAST_SEEN_RESOLUTION_MS } from './client/client.js';
export { API_KEY_LAST_USED_RESOLUTION_MS } from './accounts/api-keys.js';
export type { ActivateInput, ValidateInput, DeactivateInput, ClientCallOptions } from './client/client.js';
export type { ActivateResult, ValidateResult } from './client/results.js';
export type { BorrowInput, BorrowResult } from './client/borrow.js';
export type { SweepResult } from './client/lapse-sweep.js';
export type { LeaseAnswer } from './client/seats.js';
export { LEASE_GRACE_MS, LAPSED_RETENTION_DAYS } from './_internal/lease.js';
export type { LeaseState } from './_internal/lease.js';
export type { OfflineActivationInput, OfflineActivationResult, OfflineActivationScope } from './client/offline-activation.js';
export { PORTAL_KEY_EMAILS_PER_HOUR, PORTAL_RELEASES_DEFAULT, PORTAL_RELEASE_WINDOW_DAYS } from './portal/licenses.js';
export type { PortalActivationView, PortalLicenseView, PortalLicenseDetail, PortalCustomer } from './portal/licenses.js';
export { CUSTOMER_SESSION_LIFETIMES } from './sessions/customer.js';
export type { CustomerPrincipal, PortalLinkOutcome } from './sessions/customer.js';
export { WEBHOOK_ENDPOINTS_PER_ACCOUNT, MAX_ENDPOINT_URL_LENGTH } from './notifications/endpoints.js';
export type { CreateWebhookEndpointInput, UpdateWebhookEndpointInput } from './notifications/endpoints.js';
export { MAX_KEPT_ATTEMPTS, LAST_SUCCESS_RESOLUTION_MS } from './notifications/outbox.js';
export type { ClaimDueInput, ClaimedDelivery, DeliveryAttemptInput, DeliveryOutcome, RecordedAttempt } from './notifications/outbox.js';
export { DELIVERY_RETENTION_DAYS, TEST_NOTIFICATION_TYPE } from './notifications/deliveries.js';
export { SECRET_ROTATION_OVERLAP_MS, WEBHOOK_SECRET_PREFIX } from './notifications/secrets.js';
export { ACTOR_KINDS, AUDIT_EVENT_TYPES, OPERATOR_ACTOR, SECURITY_EVENT_TYPES } from './_internal/audit-records.js';
export type { WebhookEndpointView, WebhookEndpointSecretView, NotificationDeliveryView, DeliveryAttemptView } from './_internal/notification-views.js';
export type {
  ListView,
  ProductView,
  SigningKeyView,
  PlanView,
  ActivationView,
  LicenseView,
  LicenseDetailView,
  CustomerView,
  CustomerDetailView,
  IntegrationView,
  IntegrationWarning,
  ApiKeyView,
  ApiKeyCreatedView,
  AccountView,
  UsageView,
  BillingView,
  AuditEventView,
  SessionView,
  MemberView,
  SenderDomainView,
} from './_internal/views.js';
