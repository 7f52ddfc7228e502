import { expect, it } from 'vitest';
import * as engine from '@svc-licensing/license-engine';
import * as testing from '@svc-licensing/license-engine/testing';
import { createTestEngine } from './fixtures.js';

it('exports exactly these names (a rename is a visible decision)', () => {
  expect(Object.keys(engine).sort()).toMatchInlineSnapshot(`
    [
      "CLOSURE_DAYS",
      "DEFAULT_SERVICE_PLANS",
      "EXPORTS_PER_HOUR",
      "KEY_EMAIL_RESERVATION_MS",
      "LAST_SEEN_RESOLUTION_MS",
      "LicensingError",
      "PLAN_DEFAULTS",
      "PRODUCT_DEFAULTS",
      "StoreConflictError",
      "createIdGenerator",
      "createLicenseEngine",
      "createMemoryStore",
      "createSecretBox",
      "cryptoRandom",
      "storeSchema",
      "systemClock",
    ]
  `);
  expect(Object.keys(testing).sort()).toMatchInlineSnapshot(`
    [
      "testStore",
    ]
  `);
});

it('the engine has exactly these operations', () => {
  expect(Object.keys(createTestEngine().engine).sort()).toMatchInlineSnapshot(`
    [
      "activate",
      "activateSigningKey",
      "applyPaymentCommand",
      "authenticate",
      "changeServicePlan",
      "closeAccount",
      "createAccount",
      "createApiKey",
      "createIntegration",
      "createLicense",
      "createPlan",
      "createProduct",
      "createSigningKey",
      "deactivate",
      "deleteActivation",
      "deleteIntegration",
      "exportSigningKeys",
      "getAccount",
      "getBilling",
      "getCustomer",
      "getIntegration",
      "getIntegrationSecrets",
      "getKeyEmail",
      "getLicense",
      "getPlan",
      "getProduct",
      "getUsage",
      "listApiKeys",
      "listCustomers",
      "listEvents",
      "listIntegrations",
      "listLicenses",
      "listPlans",
      "listProducts",
      "listSigningKeys",
      "recordWebhookRejected",
      "reinstateLicense",
      "releaseKeyEmail",
      "reopenAccount",
      "reserveKeyEmail",
      "revokeApiKey",
      "revokeLicense",
      "suspendLicense",
      "updateAccount",
      "updateIntegration",
      "updateLicense",
      "updatePlan",
      "updateProduct",
      "validate",
    ]
  `);
});
