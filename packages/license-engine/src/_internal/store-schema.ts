import type { Collection } from './records.js';

interface CollectionSchema {
  /** Fields used in `where` filters; adapters index them (a SQL adapter makes them columns). */
  readonly indexed: readonly string[];
  /** Unique keys, each a list of fields. `id` is always unique. */
  readonly unique: readonly (readonly string[])[];
  /** Fields a `search` may match against. */
  readonly searchable?: readonly string[];
  /**
   * Numeric fields that a read of its own bounds and orders (`dueDeliveries`), never a `where`:
   * a SQL adapter makes them columns with an index of their own.
   */
  readonly ranged?: readonly string[];
}

/**
 * What every collection is queried by. A field not listed in `indexed` (or in a unique key) is
 * never used in a `where`; adapters may reject such a query.
 */
export const storeSchema = {
  accounts: { indexed: ['ownerEmail', 'status'], unique: [] },
  apiKeys: { indexed: ['accountId', 'hash'], unique: [['hash']] },
  products: { indexed: ['accountId'], unique: [] },
  signingKeys: { indexed: ['accountId', 'productId', 'kid', 'status'], unique: [['productId', 'kid']] },
  plans: { indexed: ['accountId', 'productId', 'code'], unique: [['productId', 'code']] },
  customers: { indexed: ['accountId', 'email'], unique: [['accountId', 'email']], searchable: ['email', 'name'] },
  licenses: {
    indexed: ['accountId', 'productId', 'planId', 'customerId', 'customerEmail', 'status', 'keyHash', 'integrationId', 'subscriptionId', 'orderId'],
    unique: [['keyHash']],
    searchable: ['customerEmail', 'customerName'],
  },
  activations: { indexed: ['accountId', 'licenseId', 'fingerprint'], unique: [['licenseId', 'fingerprint']] },
  integrations: { indexed: ['accountId', 'productId', 'provider', 'environment'], unique: [['productId', 'provider', 'environment']] },
  providerCustomers: { indexed: ['accountId', 'integrationId', 'providerCustomerId'], unique: [['integrationId', 'providerCustomerId']] },
  processedEvents: { indexed: ['accountId', 'integrationId', 'eventId'], unique: [['integrationId', 'eventId']] },
  auditEvents: { indexed: ['accountId', 'licenseId', 'type', 'actorKind'], unique: [] },
  emailReservations: { indexed: ['accountId'], unique: [] },
  counters: { indexed: ['accountId'], unique: [] },
  members: { indexed: ['accountId', 'email'], unique: [['accountId', 'email']] },
  sessions: { indexed: ['accountId', 'email', 'hash'], unique: [['hash']] },
  linkTokens: { indexed: ['accountId', 'hash'], unique: [['hash']] },
  customerSessions: { indexed: ['accountId', 'email', 'hash'], unique: [['hash']] },
  senderDomains: { indexed: ['accountId'], unique: [['accountId']] },
  webhookEndpoints: { indexed: ['accountId'], unique: [] },
  notificationDeliveries: { indexed: ['accountId', 'endpointId', 'state'], unique: [], ranged: ['dueAt'] },
  incomingDeliveries: { indexed: ['accountId', 'integrationId'], unique: [['groupKey']] },
  revocationEntries: { indexed: ['accountId', 'productId', 'licenseId'], unique: [] },
} as const satisfies Record<Collection, CollectionSchema>;
