import type { Clock, IdGenerator, Random, SecretBox } from './ports.js';
import type { ServicePlanTable } from './service-plans.js';
import { DEFAULT_SERVICE_PLANS } from './service-plans.js';
import type { Store } from './store.js';
import { systemClock } from './clock.js';
import { createIdGenerator } from './ids.js';
import { cryptoRandom } from './random.js';
import type { EngineContext } from './_internal/context.js';
import * as accounts from './accounts.js';
import { exportAccount } from './account-export.js';
import { importAccount } from './account-import.js';
import * as apiKeys from './api-keys.js';
import { listEvents } from './audit.js';
import * as client from './client.js';
import { activateOffline } from './offline-activation.js';
import * as portal from './portal.js';
import * as portalSessions from './portal-sessions.js';
import * as customers from './customers.js';
import * as integrations from './integrations.js';
import * as keyEmail from './key-email.js';
import { coalesce } from './_internal/coalesce.js';
import * as actions from './license-actions.js';
import * as licenses from './licenses.js';
import { applyPaymentCommand, recordWebhookRejected } from './payments.js';
import * as plans from './plans.js';
import * as products from './products.js';
import * as senderDomains from './sender-domains.js';
import * as signingKeys from './signing-keys.js';
import * as members from './members.js';
import * as sessions from './sessions.js';
import { purgeClosedAccounts } from './purge.js';

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
}

const bind =
  <A extends unknown[], R>(ctx: EngineContext, fn: (ctx: EngineContext, ...args: A) => R) =>
  (...args: A): R =>
    fn(ctx, ...args);

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
    releaseKeyEmails: coalesce((licenseIds: string[]) => keyEmail.releaseKeyEmailsUnit(ctx, licenseIds)),
  };
  const b = <A extends unknown[], R>(fn: (ctx: EngineContext, ...args: A) => R) => bind(ctx, fn);
  return {
    // Accounts and API keys
    createAccount: b(accounts.createAccount),
    authenticate: b(apiKeys.authenticate),
    getAccount: b(accounts.getAccount),
    updateAccount: b(accounts.updateAccount),
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
    // Client API
    activate: b(client.activate),
    validate: b(client.validate),
    deactivate: b(client.deactivate),
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
    releasePortalActivation: b(portal.releasePortalActivation),
    // Payments
    applyPaymentCommand: b(applyPaymentCommand),
    recordWebhookRejected: b(recordWebhookRejected),
  };
}

/** The engine's operations (see `createLicenseEngine`). */
export type LicenseEngine = ReturnType<typeof createLicenseEngine>;
