import type { Clock, IdGenerator, Random, SecretBox } from './_internal/ports.js';
import type { ServicePlanTable } from './_internal/service-plans.js';
import { DEFAULT_SERVICE_PLANS } from './_internal/service-plans.js';
import type { Store } from './_internal/store.js';
import { systemClock } from './adapters/clock.js';
import { createIdGenerator } from './adapters/ids.js';
import { cryptoRandom } from './adapters/random.js';
import type { EngineContext } from './_internal/context.js';
import * as accounts from './accounts/accounts.js';
import * as ownerEmail from './accounts/owner-email.js';
import { exportAccount } from './accounts/export.js';
import { importAccount } from './accounts/import.js';
import * as apiKeys from './accounts/api-keys.js';
import { listEvents } from './accounts/events.js';
import * as client from './client/client.js';
import { activateOffline } from './client/offline-activation.js';
import { borrow } from './client/borrow.js';
import { sweepLapsedLeases } from './client/lapse-sweep.js';
import * as portal from './portal/licenses.js';
import * as portalSessions from './sessions/customer.js';
import * as customers from './licenses/customers.js';
import * as integrations from './payments/integrations.js';
import * as keyEmail from './mail/key-email.js';
import { coalesce } from './_internal/coalesce.js';
import { createKeyEmailReleases } from './_internal/key-email-releases.js';
import * as actions from './licenses/actions.js';
import * as licenses from './licenses/licenses.js';
import { applyPaymentCommand } from './payments/apply.js';
import { recordWebhookRejected } from './payments/rejected.js';
import * as incoming from './payments/incoming-log.js';
import * as plans from './catalog/plans.js';
import * as products from './catalog/products.js';
import * as senderDomains from './mail/sender-domains.js';
import * as signingKeys from './catalog/signing-keys.js';
import { getRevocationList } from './catalog/revocation-list.js';
import * as members from './accounts/members.js';
import * as sessions from './sessions/operator.js';
import { purgeClosedAccounts } from './accounts/purge.js';
import * as webhookEndpoints from './notifications/endpoints.js';
import * as outbox from './notifications/outbox.js';
import * as deliveries from './notifications/deliveries.js';

/** What the engine runs on; the host wires real ports, tests deterministic ones. */
export interface LicenseEngineDeps {
  store: Store;
  /** Encrypts secrets at rest: `createSecretBox(masterKey)`. */
  secrets: SecretBox;
  /** Defaults to `systemClock`. */
  clock?: Clock;
  /** Defaults to `cryptoRandom`. */
  random?: Random;
  /** Defaults to `createIdGenerator({ clock, random })` over the clock and random above. */
  ids?: IdGenerator;
  /** Service plans by name; defaults to `DEFAULT_SERVICE_PLANS`. */
  servicePlans?: ServicePlanTable;
  /**
   * Called after a unit of work that queued notification deliveries committed, so the host's
   * dispatcher sends them now instead of at its next poll.
   */
  onNotificationsQueued?: () => void;
}

const bind =
  <A extends unknown[], R>(ctx: EngineContext, fn: (ctx: EngineContext, ...args: A) => R) =>
  (...args: A): R =>
    fn(ctx, ...args);

/** The context every operation runs in: the ports, with their defaults, and the engine's caches. */
function contextOf(deps: LicenseEngineDeps): EngineContext {
  const clock = deps.clock ?? systemClock;
  const random = deps.random ?? cryptoRandom;
  const ctx: EngineContext = {
    store: deps.store,
    clock,
    random,
    ids: deps.ids ?? createIdGenerator({ clock, random }),
    secrets: deps.secrets,
    servicePlans: deps.servicePlans ?? DEFAULT_SERVICE_PLANS,
    signers: new Map(),
    integrationHomes: new Map(),
    revocationLists: new Map(),
    keyEmailReleases: createKeyEmailReleases(coalesce((licenseIds: string[]) => keyEmail.releaseKeyEmailsUnit(ctx, licenseIds))),
    queuedIn: new WeakSet(),
    onNotificationsQueued: deps.onNotificationsQueued ?? null,
  };
  return ctx;
}

/**
 * Creates the license engine: every rule of the licensing service over the injected ports.
 * Vendor operations take the caller's account ID first (another account's object is `not_found`)
 * and return API-shaped views; failures throw `LicensingError` with the spec's code.
 *
 * @example
 * ```ts
 * // clock, random and ids default to the system clock, node:crypto / Web Crypto and time-sortable IDs
 * const engine = createLicenseEngine({ store: createMemoryStore(), secrets: createSecretBox(masterKey) });
 * const { account } = await engine.createAccount({ name: 'Acme', ownerEmail: 'owner@acme.test' });
 * const product = await engine.createProduct(account.id, { name: 'Acme Editor', keyPrefix: 'ACME-' });
 * ```
 */
/* @__NO_SIDE_EFFECTS__ */
export function createLicenseEngine(deps: LicenseEngineDeps) {
  const ctx = contextOf(deps);
  const b = <A extends unknown[], R>(fn: (ctx: EngineContext, ...args: A) => R) => bind(ctx, fn);
  return {
    // Accounts and API keys
    createAccount: b(accounts.createAccount),
    authenticate: b(apiKeys.authenticate),
    getAccount: b(accounts.getAccount),
    updateAccount: b(accounts.updateAccount),
    requestOwnerEmailChange: b(ownerEmail.requestOwnerEmailChange),
    confirmOwnerEmail: b(ownerEmail.confirmOwnerEmail),
    changeServicePlan: b(accounts.changeServicePlan),
    getUsage: b(accounts.getUsage),
    getBilling: b(accounts.getBilling),
    closeAccount: b(accounts.closeAccount),
    reopenAccount: b(accounts.reopenAccount),
    purgeClosedAccounts: b(purgeClosedAccounts),
    listApiKeys: b(apiKeys.listApiKeys),
    createApiKey: b(apiKeys.createApiKey),
    revokeApiKey: b(apiKeys.revokeApiKey),
    // Dashboard sign-in, sessions and members
    issueSignInLink: b(sessions.issueSignInLink),
    requestSignInLinks: b(sessions.requestSignInLinks),
    useLink: b(sessions.useLink),
    authenticateSession: b(sessions.authenticateSession),
    listSessions: b(sessions.listSessions),
    revokeSession: b(sessions.revokeSession),
    listMembers: b(members.listMembers),
    addMember: b(members.addMember),
    removeMember: b(members.removeMember),
    exportAccount: b(exportAccount),
    importAccount: b(importAccount),
    // Sender domain
    getSenderDomain: b(senderDomains.getSenderDomain),
    claimSenderDomain: b(senderDomains.claimSenderDomain),
    verifySenderDomain: b(senderDomains.verifySenderDomain),
    releaseSenderDomain: b(senderDomains.releaseSenderDomain),
    // Products, signing keys, plans
    listProducts: b(products.listProducts),
    createProduct: b(products.createProduct),
    getProduct: b(products.getProduct),
    updateProduct: b(products.updateProduct),
    listSigningKeys: b(signingKeys.listSigningKeys),
    createSigningKey: b(signingKeys.createSigningKey),
    activateSigningKey: b(signingKeys.activateSigningKey),
    exportSigningKeys: b(signingKeys.exportSigningKeys),
    // The signed revocation list (RVL1) of a product, public
    getRevocationList: b(getRevocationList),
    listPlans: b(plans.listPlans),
    createPlan: b(plans.createPlan),
    getPlan: b(plans.getPlan),
    updatePlan: b(plans.updatePlan),
    // Licenses, activations, customers, events
    listLicenses: b(licenses.listLicenses),
    createLicense: b(licenses.createLicense),
    getLicense: b(licenses.getLicense),
    updateLicense: b(licenses.updateLicense),
    suspendLicense: b(actions.suspendLicense),
    reinstateLicense: b(actions.reinstateLicense),
    revokeLicense: b(actions.revokeLicense),
    deleteActivation: b(actions.deleteActivation),
    reserveKeyEmail: b(keyEmail.reserveKeyEmail),
    getKeyEmail: b(keyEmail.getKeyEmail),
    releaseKeyEmail: b(keyEmail.releaseKeyEmail),
    listCustomers: b(customers.listCustomers),
    getCustomer: b(customers.getCustomer),
    listEvents: b(listEvents),
    // Integrations
    listIntegrations: b(integrations.listIntegrations),
    getIntegration: b(integrations.getIntegration),
    createIntegration: b(integrations.createIntegration),
    updateIntegration: b(integrations.updateIntegration),
    deleteIntegration: b(integrations.deleteIntegration),
    getIntegrationSecrets: b(integrations.getIntegrationSecrets),
    countProviderAApiKeys: b(integrations.countProviderAApiKeys),
    // Client API
    activate: b(client.activate),
    validate: b(client.validate),
    deactivate: b(client.deactivate),
    borrow: b(borrow),
    sweepLapsedLeases: b(sweepLapsedLeases),
    activateOffline: b(activateOffline),
    // Customer portal
    getPortal: b(portalSessions.getPortal),
    requestPortalLink: b(portalSessions.requestPortalLink),
    usePortalLink: b(portalSessions.usePortalLink),
    authenticateCustomer: b(portalSessions.authenticateCustomer),
    endCustomerSession: b(portalSessions.endCustomerSession),
    listPortalLicenses: b(portal.listPortalLicenses),
    getPortalLicense: b(portal.getPortalLicense),
    revealPortalKey: b(portal.revealPortalKey),
    checkPortalLicense: b(portal.checkPortalLicense),
    reservePortalKeyEmail: b(portal.reservePortalKeyEmail),
    releasePortalActivation: b(portal.releasePortalActivation),
    // Payments
    applyPaymentCommand: b(applyPaymentCommand),
    recordWebhookRejected: b(recordWebhookRejected),
    // The log of incoming provider deliveries, refused ones included
    recordIncomingDeliveries: b(incoming.recordIncomingDeliveries),
    listIncomingDeliveries: b(incoming.listIncomingDeliveries),
    purgeOldIncomingDeliveries: b(incoming.purgeOldIncomingDeliveries),
    // Notifications to the vendor's backend: endpoints, the delivery log, the dispatcher's outbox
    listWebhookEndpoints: b(webhookEndpoints.listWebhookEndpoints),
    getWebhookEndpoint: b(webhookEndpoints.getWebhookEndpoint),
    createWebhookEndpoint: b(webhookEndpoints.createWebhookEndpoint),
    updateWebhookEndpoint: b(webhookEndpoints.updateWebhookEndpoint),
    deleteWebhookEndpoint: b(webhookEndpoints.deleteWebhookEndpoint),
    rotateWebhookEndpointSecret: b(webhookEndpoints.rotateWebhookEndpointSecret),
    listDeliveries: b(deliveries.listDeliveries),
    resendDelivery: b(deliveries.resendDelivery),
    sendTestNotification: b(deliveries.sendTestNotification),
    purgeOldDeliveries: b(deliveries.purgeOldDeliveries),
    disabledEndpointNotice: b(deliveries.disabledEndpointNotice),
    claimDueDeliveries: b(outbox.claimDueDeliveries),
    recordDeliveryAttempt: b(outbox.recordDeliveryAttempt),
    recordDeliveryAttempts: b(outbox.recordDeliveryAttempts),
  };
}

/** The engine's operations (see `createLicenseEngine`). */
export type LicenseEngine = ReturnType<typeof createLicenseEngine>;
