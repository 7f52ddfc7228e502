/**
 * Stored records: what a store adapter persists, one type per collection.
 * Times are ISO 8601 UTC strings of the form `YYYY-MM-DDThh:mm:ssZ` unless a field says otherwise.
 * IDs are `<prefix>_` + a time-sortable suffix, so ordering by `id` is ordering by creation.
 */

import type { LicenseStatus } from '@svc-licensing/cert-format';
import type { Actor, AuditEventRecord } from './audit-records.js';
import type { NotificationDeliveryRecord, WebhookEndpointRecord, WebhookSubscription } from './notification-records.js';
import type { IncomingDeliveryRecord } from './incoming-records.js';
import type { RevocationEntryRecord } from './revocation-records.js';
import type { ProductRecord } from './product-records.js';
import type { ActivationRecord } from './activation-records.js';
import type { CustomerSessionRecord, LinkTokenRecord, MemberRecord, SenderDomainRecord, SessionRecord } from './access-records.js';
import type { EncryptedSecret } from './ports.js';
import type { Timestamp } from './timestamp.js';

export type * from './access-records.js';
export type * from './audit-records.js';
export type * from './notification-records.js';
export type * from './incoming-records.js';
export type * from './revocation-records.js';
export type * from './product-records.js';
export type * from './activation-records.js';
export type { EncryptedSecret } from './ports.js';
export type { Timestamp } from './timestamp.js';

import type { ProviderName } from './provider-name.js';
export type { ProviderName } from './provider-name.js';

/** Language of customer e-mails. */
export type Locale = 'en' | 'fr';

/** Where the customer portal lives: the service-hosted one (`svc`), a custom https URL, or none. */
export type CustomerPortal = { mode: 'svc' } | { mode: 'custom'; url: string } | { mode: 'none' };

export interface AccountRecord {
  id: string; // acc_
  name: string;
  ownerEmail: string;
  /** The vendor's own plan with this service (a key of the host's service-plan table). */
  servicePlan: string;
  senderName: string | null;
  senderEmail: string | null;
  /** null: replies go to the sender address. */
  replyTo: string | null;
  defaultLocale: Locale;
  customerPortal: CustomerPortal;
  /**
   * Machines a customer may free in the service-hosted portal per license and 30 days; absent in
   * records written before the portal: `PORTAL_RELEASES_DEFAULT` (3).
   */
  portalReleaseLimit?: number;
  status: 'open' | 'closed';
  closedAt: Timestamp | null;
  /**
   * The enabled webhook endpoints and the event types each receives, kept in step with the
   * endpoints in the same unit of work, so an audited change knows from the account alone whether
   * anything must be notified; absent or empty: none.
   */
  webhookSubscriptions?: WebhookSubscription[];
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface ApiKeyRecord {
  id: string; // key_
  accountId: string;
  name: string;
  /** First 10 characters of the key value. */
  prefix: string;
  /** Lowercase hex SHA-256 of the full key value; the value itself is never stored. */
  hash: string;
  lastUsedAt: Timestamp | null;
  createdAt: Timestamp;
  /** Who created the key; absent on keys created before creators were recorded. */
  createdBy?: Actor;
}

export type SigningKeyStatus = 'pending' | 'active' | 'retired';

export interface SigningKeyRecord {
  id: string; // sgk_
  accountId: string;
  productId: string;
  /** `k1`, `k2`, ... */
  kid: string;
  /** The number in `kid`; signing keys list in this order. */
  seq: number;
  /** base64url (no padding) of the raw 32-byte Ed25519 public key. */
  publicKey: string;
  /** The encrypted 32-byte seed. Never leaves the engine except through the owner export. */
  privateKey: EncryptedSecret;
  status: SigningKeyStatus;
  createdAt: Timestamp;
  activatedAt: Timestamp | null;
}

export type PlanKind = 'subscription' | 'perpetual' | 'trial';

/**
 * How a plan's seats are held (docs/floating-seats.md): bound to machines (`machine`, the contract),
 * or leases any machine may check out while fewer than the activation limit are live (`floating`).
 */
export type SeatMode = 'machine' | 'floating';

export interface PlanRecord {
  id: string; // pln_
  accountId: string;
  productId: string;
  code: string;
  name: string;
  kind: PlanKind;
  maxActivations: number;
  entitlements: string[];
  maxMajor: number | null;
  trialDays: number;
  /** 1..365, or null to use the product's value. */
  offlineDays: number | null;
  /** Immutable like `kind`; absent on plans written before floating seats: `machine`. */
  seatMode?: SeatMode;
  /** Floating plans: 120..86400 seconds a check-out or heartbeat holds the seat. null (or absent) on machine plans. */
  leaseSeconds?: number | null;
  /** Floating plans: 0..365, the longest borrow in days (0: none). null (or absent) on machine plans. */
  maxBorrowDays?: number | null;
  /** Floating plans: machines of one license that may hold a borrow at once; null: every seat. Absent on machine plans. */
  maxBorrowedSeats?: number | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface CustomerRecord {
  id: string; // cus_
  accountId: string;
  /** Trimmed and lowercased: customers are matched by e-mail within the account. */
  email: string;
  name: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface LicenseRecord {
  id: string; // lic_
  accountId: string;
  productId: string;
  planId: string;
  /** Denormalized from the plan for filters and certificates; kept in step on plan change. */
  planCode: string;
  customerId: string;
  /** Denormalized from the customer for the `email` and `q` filters. */
  customerEmail: string;
  customerName: string;
  status: LicenseStatus;
  /** The status held before a suspension or refund; `reinstate` returns to it. null otherwise. */
  heldStatus: LicenseStatus | null;
  seats: number;
  /** Per-license activation limit override; null = plan maxActivations x seats. */
  maxActivations: number | null;
  /** Per-license maxMajor override; null = no override (use the plan's). */
  maxMajorOverride: { value: number | null } | null;
  paidUntil: Timestamp | null;
  /** Lowercase hex SHA-256 of the normalized license key: the lookup index. */
  keyHash: string;
  /** The license key, encrypted, so the detail response can show it. */
  keyEncrypted: EncryptedSecret;
  provider: ProviderName | null;
  integrationId: string | null;
  /** Provider subscription this license follows (one license per customer and plan subscription). */
  subscriptionId: string | null;
  /** Provider order / transaction that created a one-time (perpetual) license, for refunds. */
  orderId: string | null;
  /** Ordering key of the last applied provider event (see docs/decisions.md); null before any. */
  lastEventKey: string | null;
  activationCount: number;
  /**
   * Floating plans: raised by every check-out (and late heartbeat) of the license, so each writes
   * the license row and two of them conflict, also at a Galera cluster's certification. Absent
   * before the license's first check-out.
   */
  leaseSeq?: number;
  locale: Locale;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export type Environment = 'sandbox' | 'live';

export interface IntegrationRecord {
  id: string; // int_
  accountId: string;
  productId: string;
  provider: ProviderName;
  environment: Environment;
  /** Provider price ID (provider_a) or variant ID (provider_b) to plan code. */
  priceMap: Record<string, string>;
  webhookSecret: EncryptedSecret | null;
  apiKey: EncryptedSecret | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** A provider's customer ID mapped to an e-mail (provider_a events carry only the ID). */
export interface ProviderCustomerRecord {
  id: string; // pcu_
  accountId: string;
  integrationId: string;
  providerCustomerId: string;
  email: string;
  name: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** A provider event that was processed; the unique (integrationId, eventId) pair de-duplicates deliveries. */
export interface ProcessedEventRecord {
  id: string; // pev_
  accountId: string;
  integrationId: string;
  eventId: string;
  eventType: string;
  result: string;
  processedAt: Timestamp;
  /** When the first duplicate delivery was logged; later duplicates write nothing (absent on older records: none logged yet). */
  duplicateLoggedAt?: Timestamp | null;
}

/** One key e-mail in progress for a license; expires after one minute if abandoned. */
export interface EmailReservationRecord {
  /** The license ID: at most one reservation per license. */
  id: string;
  accountId: string;
  expiresAt: Timestamp;
}

/** A counter in a fixed window (e-mail budget per account and hour, and similar). */
export interface CounterRecord {
  /** Caller-chosen key, e.g. `email:<accountId>:<hour>`. */
  id: string;
  accountId: string;
  count: number;
  /** When the window ends; adapters may delete expired counters. */
  expiresAt: Timestamp;
}

/** Every collection a store holds, by name. */
export interface RecordMap {
  accounts: AccountRecord;
  apiKeys: ApiKeyRecord;
  products: ProductRecord;
  signingKeys: SigningKeyRecord;
  plans: PlanRecord;
  customers: CustomerRecord;
  licenses: LicenseRecord;
  activations: ActivationRecord;
  integrations: IntegrationRecord;
  providerCustomers: ProviderCustomerRecord;
  processedEvents: ProcessedEventRecord;
  auditEvents: AuditEventRecord;
  emailReservations: EmailReservationRecord;
  counters: CounterRecord;
  members: MemberRecord;
  sessions: SessionRecord;
  linkTokens: LinkTokenRecord;
  customerSessions: CustomerSessionRecord;
  senderDomains: SenderDomainRecord;
  webhookEndpoints: WebhookEndpointRecord;
  notificationDeliveries: NotificationDeliveryRecord;
  incomingDeliveries: IncomingDeliveryRecord;
  revocationEntries: RevocationEntryRecord;
}

/** Name of a collection. */
export type Collection = keyof RecordMap;
