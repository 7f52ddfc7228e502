import type { LicenseStatus } from '@svc-licensing/cert-format';

/**
 * Stored records: what a store adapter persists, one type per collection.
 * Times are ISO 8601 UTC strings of the form `YYYY-MM-DDThh:mm:ssZ` unless a field says otherwise.
 * IDs are `<prefix>_` + a time-sortable suffix, so ordering by `id` is ordering by creation.
 */
export type Timestamp = string;

/** Ciphertext of a secret (AES-256-GCM under the host's master key), as produced by the crypto port. */
export type EncryptedSecret = string;

/** The two supported payment providers. */
export type ProviderName = 'provider_a' | 'provider_b';

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
}

export interface ProductRecord {
  id: string; // prd_
  accountId: string;
  name: string;
  keyPrefix: string;
  graceDays: number;
  offlineDays: number;
  createdAt: Timestamp;
  updatedAt: Timestamp;
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
  locale: Locale;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface ActivationRecord {
  id: string; // act_
  accountId: string;
  licenseId: string;
  /** 64 lowercase hex characters. */
  fingerprint: string;
  name: string | null;
  platform: string | null;
  appVersion: string | null;
  createdAt: Timestamp;
  /** Last activate or validate, to within `LAST_SEEN_RESOLUTION_MS` (60 s): validate writes only when it moves further. */
  lastSeenAt: Timestamp;
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

/** Audit event types of the spec's table. */
export type AuditEventType =
  | 'license.created'
  | 'license.status_changed'
  | 'license.updated'
  | 'activation.created'
  | 'activation.deleted'
  | 'webhook.received'
  | 'signing_key.created'
  | 'signing_key.rotated'
  | 'signing_key.exported'
  | 'account.plan_changed'
  | 'sender_domain.claimed'
  | 'sender_domain.checked'
  | 'sender_domain.released'
  | 'account.exported'
  | 'account.imported';

export interface AuditEventRecord {
  id: string; // evt_
  accountId: string;
  type: AuditEventType;
  licenseId: string | null;
  data: Record<string, unknown>;
  createdAt: Timestamp;
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

/** Who a dashboard session belongs to: the account's owner e-mail, or an invited member. */
export type Role = 'owner' | 'member';

/** Someone the owner invited into the account's dashboard (the owner is `AccountRecord.ownerEmail`, not a member). */
export interface MemberRecord {
  id: string; // mem_
  accountId: string;
  /** Trimmed and lowercased; one member per account and address. */
  email: string;
  createdAt: Timestamp;
}

/** A signed-in dashboard session; the cookie holds the token, the store only its SHA-256. */
export interface SessionRecord {
  id: string; // ses_
  accountId: string;
  /** The signed-in address; its role is decided at each request (owner e-mail, or still a member). */
  email: string;
  /** Lowercase hex SHA-256 of the session token. */
  hash: string;
  createdAt: Timestamp;
  /** Last request, to within `SESSION_LAST_SEEN_RESOLUTION_MS`; the idle lifetime counts from it. */
  lastSeenAt: Timestamp;
  /** The absolute end of the session, whatever its use. */
  expiresAt: Timestamp;
}

/** Why a one-time link was issued. */
export type LinkPurpose = 'sign_in' | 'reopen' | 'portal_sign_in';

/**
 * A one-time link token (sign-in or account reopening): only its SHA-256 is stored. Kept, marked
 * used, until it expires, so a second use is told apart from an unknown token.
 */
export interface LinkTokenRecord {
  id: string; // ltk_
  accountId: string;
  purpose: LinkPurpose;
  /** The address the link signs in (sign-in links); the owner's for reopening. */
  email: string;
  /** Lowercase hex SHA-256 of the token. */
  hash: string;
  createdAt: Timestamp;
  expiresAt: Timestamp;
  usedAt: Timestamp | null;
}

/**
 * A signed-in customer of the service-hosted portal: separate from dashboard sessions (another
 * collection, token prefix and cookie), so it can never authenticate the vendor API.
 */
export interface CustomerSessionRecord {
  id: string; // cse_
  accountId: string;
  /** The customer's address (trimmed, lowercased): it sees the account's licenses held by this address. */
  email: string;
  /** Lowercase hex SHA-256 of the session token. */
  hash: string;
  createdAt: Timestamp;
  lastSeenAt: Timestamp;
  expiresAt: Timestamp;
}

/** Where a claimed sender domain stands: `pending` until checked, then `verified` or `failed`. */
export type SenderDomainStatus = 'pending' | 'verified' | 'failed';

/** The outcome of each DNS record at the last check; null before any check. */
export interface SenderDomainChecks {
  ownership: boolean;
  spf: boolean;
  dkim: boolean;
}

/**
 * The sender domain an account claimed (at most one per account). Its DKIM key pair is generated
 * at the claim; the private key is stored only encrypted and leaves the engine only to sign mail.
 */
export interface SenderDomainRecord {
  id: string; // sdm_
  accountId: string;
  /** Lowercase, without a trailing dot. */
  domain: string;
  status: SenderDomainStatus;
  /** The random value of the ownership TXT record. */
  verifyToken: string;
  /** The SPF mechanism that authorizes the service's mail (e.g. `include:svc.example`), fixed at the claim. */
  spfMechanism: string;
  /** DKIM selector: the key is published at `<selector>._domainkey.<domain>`. */
  dkimSelector: string;
  /** base64 of the DKIM public key (SubjectPublicKeyInfo DER, RSA 2048), as published in the `p=` tag. */
  dkimPublicKey: string;
  /** The DKIM private key (PKCS#8 DER), encrypted. Never listed, exported or logged. */
  dkimPrivateKey: EncryptedSecret;
  checks: SenderDomainChecks | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  checkedAt: Timestamp | null;
  verifiedAt: Timestamp | null;
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
}

/** Name of a collection. */
export type Collection = keyof RecordMap;
