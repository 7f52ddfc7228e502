export type * from './records.js';
export type { Store, StoreTx, Where, ReadOptions, WriteOptions, PageQuery, Page, TransactionOptions, ClientLicenseQuery, ClientLicenseRecords, ProviderCustomerQuery, ProviderCustomerRecords } from './store.js';
export { StoreConflictError, storeSchema } from './store.js';
export type * from './commands.js';
export { LicensingError } from './errors.js';
export type { LicensingErrorCode } from './errors.js';
export type { Clock, Random, IdGenerator, IdPrefix, SecretBox, DnsResolver } from './ports.js';

export { createLicenseEngine } from './engine.js';
export type { LicenseEngine, LicenseEngineDeps } from './engine.js';
export { createMemoryStore } from './memory-store.js';
export { systemClock } from './clock.js';
export { isTimestamp } from './timestamp.js';
export { cryptoRandom } from './random.js';
export { createIdGenerator } from './ids.js';
export { createSecretBox } from './secret-box.js';
export { DEFAULT_SERVICE_PLANS } from './service-plans.js';
export type { ServicePlan, ServicePlanTable } from './service-plans.js';
export { CLOSURE_DAYS } from './accounts.js';
export { SESSION_LIFETIMES, sealOperatorSignInLink } from './sessions.js';
export type { PurgeResult } from './purge.js';
export type { IssuedLink, LinkOutcome, SessionPrincipal } from './sessions.js';
export { PRODUCT_DEFAULTS } from './products.js';
export { PLAN_DEFAULTS } from './plans.js';
export { EXPORTS_PER_HOUR } from './signing-keys.js';
export type { SigningKeyExport } from './signing-keys.js';
export { KEY_EMAIL_RESERVATION_MS } from './key-email.js';
export type { KeyEmail } from './key-email.js';
export type { DkimSigning } from './sender-domains.js';
export { ACCOUNT_EXPORT_FORMAT, ACCOUNT_EXPORT_PAGE_SIZE } from './account-export.js';
export type { AccountExportItem, AccountImportInput, AccountImportResult } from './account-import.js';
export type {
  AccountExport, AccountExportDocument, ExportedLicense, ExportedSigningKey, ExportedIntegration, ExportedApiKey, ExportedSenderDomain,
} from './account-export.js';
export { OWNERSHIP_RECORD_LABEL, DEFAULT_SENDER_LOCAL_PART } from './_internal/sender-domain.js';
export type { SenderDomainDnsRecord } from './_internal/sender-domain.js';
export type { PaymentOptions, PaymentResult, RejectedWebhook } from './payments.js';
export type { AuditData } from './audit.js';
export type { CreateProductInput } from './products.js';
export type { CreatePlanInput, UpdatePlanInput } from './plans.js';
export type { CreateLicenseInput, UpdateLicenseInput, LicenseFilters } from './licenses.js';
export type { CreateIntegrationInput, UpdateIntegrationInput } from './integrations.js';
export { LAST_SEEN_RESOLUTION_MS } from './client.js';
export { API_KEY_LAST_USED_RESOLUTION_MS } from './api-keys.js';
export type { ActivateInput, ValidateInput, DeactivateInput } from './client.js';
export type { OfflineActivationInput, OfflineActivationResult, OfflineActivationScope } from './offline-activation.js';
export { PORTAL_RELEASES_DEFAULT, PORTAL_RELEASE_WINDOW_DAYS } from './portal.js';
export type { PortalLicenseView, PortalLicenseDetail, PortalCustomer } from './portal.js';
export { CUSTOMER_SESSION_LIFETIMES } from './portal-sessions.js';
export type { CustomerPrincipal, PortalLinkOutcome } from './portal-sessions.js';
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
  ApiKeyView,
  ApiKeyCreatedView,
  AccountView,
  UsageView,
  BillingView,
  AuditEventView,
  SessionView,
  MemberView,
  SenderDomainView,
} from './views.js';
