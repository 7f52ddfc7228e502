import type { Collection, RecordMap } from '../_internal/records.js';
import { createIdGenerator } from '../adapters/ids.js';
import type { IdPrefix } from '../_internal/ports.js';

const PREFIX: Record<Collection, IdPrefix> = {
  accounts: 'acc',
  apiKeys: 'key',
  products: 'prd',
  signingKeys: 'sgk',
  plans: 'pln',
  customers: 'cus',
  licenses: 'lic',
  activations: 'act',
  integrations: 'int',
  providerCustomers: 'pcu',
  processedEvents: 'pev',
  auditEvents: 'evt',
  emailReservations: 'lic',
  counters: 'evt',
  members: 'mem',
  sessions: 'ses',
  linkTokens: 'ltk',
  customerSessions: 'cse',
  senderDomains: 'sdm',
  webhookEndpoints: 'wep',
  notificationDeliveries: 'msg',
  incomingDeliveries: 'rcv',
  revocationEntries: 'rve',
};

const AT = '2030-01-01T00:00:00Z';

/** Valid sample records of every collection for the conformance suite; IDs increase with each call. */
export function createSamples() {
  let tick = Date.parse(AT);
  const ids = createIdGenerator({ clock: { now: () => tick++ }, random: { bytes: (n) => new Uint8Array(n).fill(7) } });
  let serial = 0;
  const n = () => ++serial;

  const build: { [C in Collection]: (id: string, i: number) => RecordMap[C] } = {
    accounts: (id, i) => ({
      id, name: `Account ${i}`, ownerEmail: `owner${i}@example.test`, servicePlan: 'free', senderName: null, senderEmail: null,
      replyTo: null, defaultLocale: 'en', customerPortal: { mode: 'custom', url: `https://portal${i}.example.test/` }, status: 'open',
      closedAt: null, createdAt: AT, updatedAt: AT,
    }),
    apiKeys: (id, i) => ({ id, accountId: 'acc_a', name: `key ${i}`, prefix: `svc_sk_${i}`, hash: `hash${i}`, lastUsedAt: null, createdAt: AT }),
    products: (id, i) => ({ id, accountId: 'acc_a', name: `Product ${i}`, keyPrefix: 'P-', graceDays: 3, offlineDays: 7, createdAt: AT, updatedAt: AT }),
    signingKeys: (id, i) => ({
      id, accountId: 'acc_a', productId: 'prd_a', kid: `k${i}`, seq: i, publicKey: `pub${i}`, privateKey: `sealed${i}`,
      status: 'pending', createdAt: AT, activatedAt: null,
    }),
    plans: (id, i) => ({
      id, accountId: 'acc_a', productId: 'prd_a', code: `plan-${i}`, name: `Plan ${i}`, kind: 'subscription', maxActivations: 2,
      entitlements: ['a', 'b'], maxMajor: null, trialDays: 0, offlineDays: null, createdAt: AT, updatedAt: AT,
    }),
    customers: (id, i) => ({ id, accountId: 'acc_a', email: `c${i}@example.test`, name: `Customer ${i}`, createdAt: AT, updatedAt: AT }),
    licenses: (id, i) => ({
      id, accountId: 'acc_a', productId: 'prd_a', planId: 'pln_a', planCode: 'pro', customerId: `cus_${i}`, customerEmail: `c${i}@example.test`,
      customerName: `Customer ${i}`, status: 'active', heldStatus: null, seats: 1, maxActivations: null, maxMajorOverride: { value: 3 },
      paidUntil: AT, keyHash: `hash${i}`, keyEncrypted: `sealed${i}`, provider: null, integrationId: null, subscriptionId: null,
      orderId: null, lastEventKey: null, activationCount: 0, locale: 'en', createdAt: AT, updatedAt: AT,
    }),
    activations: (id, i) => ({
      id, accountId: 'acc_a', licenseId: 'lic_a', fingerprint: i.toString(16).padStart(64, '0'), name: null, platform: 'linux',
      appVersion: '1.0.0', createdAt: AT, lastSeenAt: AT,
    }),
    integrations: (id, i) => ({
      id, accountId: 'acc_a', productId: `prd_${i}`, provider: 'provider_a', environment: 'live', priceMap: { [`pri_${i}`]: 'pro' },
      webhookSecret: null, apiKey: 'sealed', createdAt: AT, updatedAt: AT,
    }),
    providerCustomers: (id, i) => ({
      id, accountId: 'acc_a', integrationId: 'int_a', providerCustomerId: `ctm_${i}`, email: `c${i}@example.test`, name: null,
      createdAt: AT, updatedAt: AT,
    }),
    processedEvents: (id, i) => ({ id, accountId: 'acc_a', integrationId: 'int_a', eventId: `evt_${i}`, eventType: 'transaction.completed', result: 'processed', processedAt: AT }),
    auditEvents: (id, i) => ({ id, accountId: 'acc_a', type: 'license.created', licenseId: `lic_${i}`, data: { plan: 'pro', nested: { n: i } }, createdAt: AT }),
    emailReservations: (id) => ({ id, accountId: 'acc_a', expiresAt: AT }),
    counters: (id, i) => ({ id, accountId: 'acc_a', count: i, expiresAt: AT }),
    members: (id, i) => ({ id, accountId: 'acc_a', email: `m${i}@example.test`, createdAt: AT }),
    sessions: (id, i) => ({ id, accountId: 'acc_a', email: `m${i}@example.test`, hash: `hash${i}`, createdAt: AT, lastSeenAt: AT, expiresAt: AT }),
    customerSessions: (id, i) => ({ id, accountId: 'acc_a', email: `c${i}@example.test`, hash: `chash${i}`, createdAt: AT, lastSeenAt: AT, expiresAt: AT }),
    linkTokens: (id, i) => ({
      id, accountId: 'acc_a', purpose: 'sign_in', email: `m${i}@example.test`, hash: `hash${i}`, createdAt: AT, expiresAt: AT, usedAt: null,
    }),
    senderDomains: (id, i) => ({
      id, accountId: `acc_${i}`, domain: `mail${i}.example.test`, status: 'pending', verifyToken: `token${i}`, spfMechanism: 'include:svc.example',
      dkimSelector: `svc${i}`, dkimPublicKey: `pub${i}`, dkimPrivateKey: `sealed${i}`, checks: null, createdAt: AT, updatedAt: AT,
      checkedAt: null, verifiedAt: null,
    }),
    webhookEndpoints: (id, i) => ({
      id, accountId: 'acc_a', url: `https://hooks${i}.example.test/svc`, description: `Endpoint ${i}`, events: ['license.created'], enabled: true,
      disabledReason: null, secret: `sealed${i}`, previousSecret: { secret: `sealed-old${i}`, expiresAt: 1_900_000_000_000 }, lastSuccessAt: null,
      createdAt: AT, updatedAt: AT,
    }),
    notificationDeliveries: (id, i) => ({
      id, accountId: 'acc_a', endpointId: 'wep_a', eventId: `evt_${i}`, type: 'license.created', body: `{"n":${i}}`, state: 'pending',
      dueAt: 1_900_000_000_000 + i, nextAttemptAt: 1_900_000_000_000 + i, roundAttempts: 0, firstAttemptAt: null,
      attempts: [{ at: 1_899_999_000_000, ok: false, status: 503, latencyMs: 12, errorCode: 'http_status', errorMessage: 'busy', responseBody: 'é"\\' }],
      claim: null, createdAt: AT, updatedAt: AT,
    }),
    incomingDeliveries: (id, i) => ({
      id, accountId: 'acc_a', integrationId: 'int_a', groupKey: `group${i}`, provider: 'provider_b', status: 401, result: 'refused',
      reason: 'signature_mismatch', message: `refused ${i}: "é"`, eventType: null, eventId: null, count: i, firstAt: AT, lastAt: AT,
    }),
    revocationEntries: (id, i) => ({
      id, accountId: 'acc_a', productId: 'prd_a', licenseId: `lic_${i}`, fingerprint: i % 2 === 0 ? null : 'a'.repeat(64),
      freedAt: i % 2 === 0 ? null : 1_893_456_000 + i, until: 1_924_992_000,
    }),
  };

  /** A valid record of `collection` with fresh ID and unique keys, then `overrides`. */
  return function sample<C extends Collection>(collection: C, overrides: Partial<RecordMap[C]> = {}): RecordMap[C] {
    const i = n();
    return { ...build[collection](ids.next(PREFIX[collection]), i), ...overrides } as RecordMap[C];
  };
}

export type Sample = ReturnType<typeof createSamples>;
