import type { LicenseStatus } from '@svc-licensing/cert-format';
import type {
  Actor,
  AuditEventType,
  CustomerPortal,
  Environment,
  Locale,
  PlanKind,
  ProviderName,
  SeatMode,
  Role,
  SenderDomainStatus,
  SigningKeyStatus,
  Timestamp,
} from './records.js';
import type { LeaseState } from './lease.js';

/** API-shaped objects the engine returns: the spec's resource tables, field for field. */

/** A list page: `nextCursor` is null on the last page. */
export interface ListView<T> {
  data: T[];
  nextCursor: string | null;
}

export interface ProductView {
  id: string;
  name: string;
  keyPrefix: string;
  graceDays: number;
  offlineDays: number;
  createdAt: Timestamp;
}

export interface SigningKeyView {
  kid: string;
  publicKey: string;
  status: SigningKeyStatus;
  createdAt: Timestamp;
  activatedAt: Timestamp | null;
}

export interface PlanView {
  id: string;
  /** Product ID. */
  product: string;
  code: string;
  name: string;
  kind: PlanKind;
  maxActivations: number;
  entitlements: string[];
  maxMajor: number | null;
  trialDays: number;
  offlineDays: number | null;
  /** `machine` or `floating` (docs/floating-seats.md). */
  seatMode: SeatMode;
  /** Floating plans: the lease length in seconds; null on machine plans. */
  leaseSeconds: number | null;
  /** Floating plans: the longest borrow in days (0: none); null on machine plans. */
  maxBorrowDays: number | null;
  /** Floating plans: machines of one license that may borrow at once, null for every seat; null on machine plans. */
  maxBorrowedSeats: number | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface ActivationView {
  id: string;
  fingerprint: string;
  name: string | null;
  platform: string | null;
  appVersion: string | null;
  createdAt: Timestamp;
  lastSeenAt: Timestamp;
  /** Floating plans: where the machine's lease ends; null on machine plans. */
  leaseExpiresAt: Timestamp | null;
  /** Floating plans: the end of the machine's borrow while one stands, else null. */
  borrowedUntil: Timestamp | null;
  /** Floating plans: `live`, `borrowed` or `lapsed` as the server's clock saw it when answering; null on machine plans. */
  leaseState: LeaseState | null;
}

export interface LicenseView {
  id: string;
  product: string;
  plan: string;
  planId: string;
  planName: string;
  customer: { id: string; email: string; name: string };
  status: LicenseStatus;
  seats: number;
  maxActivations: number | null;
  activationLimit: number;
  maxMajor: number | null;
  entitlements: string[];
  paidUntil: Timestamp | null;
  validUntil: Timestamp | null;
  provider: ProviderName | null;
  /** Machines on record (on a floating plan lapsed rows included). */
  activationCount: number;
  /** The plan's seat mode. */
  seatMode: SeatMode;
  /** Floating plans: machines holding a live lease now (live / `activationLimit`); null on machine plans. */
  liveLeases: number | null;
  /** Floating plans: machines holding a borrow now; null on machine plans. */
  borrowedLeases: number | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** The create and detail responses: the list item plus the key and the activations. */
export interface LicenseDetailView extends LicenseView {
  key: string;
  activations: ActivationView[];
}

export interface CustomerView {
  id: string;
  email: string;
  name: string;
  licenseCount: number;
}

export interface CustomerDetailView extends CustomerView {
  licenses: LicenseView[];
}

/**
 * Something about an integration that keeps it from working as set up. `unknown_plan_code`: its
 * price map names a plan code its product does not have (saved before such maps were refused), so
 * purchases of that price are ignored. `api_key_unused`: added by the host, which knows whether it
 * can reach the provider's API for the integration's environment.
 */
export interface IntegrationWarning {
  code: 'unknown_plan_code' | 'api_key_unused';
  message: string;
}

export interface IntegrationView {
  id: string;
  provider: ProviderName;
  product: string;
  environment: Environment;
  priceMap: Record<string, string>;
  hasWebhookSecret: boolean;
  hasApiKey: boolean;
  /** What keeps the integration from working as set up; empty when nothing does. */
  warnings: IntegrationWarning[];
}

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  lastUsedAt: Timestamp | null;
  createdAt: Timestamp;
  /** Who created the key (the owner, an API key, the operator); null for keys made before creators were recorded. */
  createdBy: Actor | null;
}

export interface ApiKeyCreatedView extends ApiKeyView {
  /** The full value, shown only in the create response. */
  key: string;
}

export interface AccountView {
  id: string;
  name: string;
  ownerEmail: string;
  /** The service plan. */
  plan: string;
  /** The custom portal's URL; null for `none`, and for `svc` until the server fills in its own address. */
  portalUrl: string | null;
  senderName: string | null;
  senderEmail: string | null;
  replyTo: string | null;
  defaultLocale: Locale;
  customerPortal: CustomerPortal;
  /** Machines a customer may free in the service-hosted portal per license and 30 days (default 3). */
  portalReleaseLimit: number;
  status: 'open' | 'closed';
  closedAt: Timestamp | null;
  createdAt: Timestamp;
}

export interface UsageView {
  plan: string;
  activeLicenses: number;
  licenseLimit: number | null;
  products: number;
  productLimit: number | null;
  overLimit: boolean;
}

export interface BillingView {
  plan: string;
  /** Always null on a self-hosted instance: the operator sets the plan, nothing is billed. */
  interval: 'month' | null;
  status: 'active' | 'canceled';
  currentPeriodEnd: Timestamp | null;
  cancelAt: Timestamp | null;
}

export interface AuditEventView {
  id: string;
  type: AuditEventType;
  /** License ID, or null for events about no license. */
  license: string | null;
  data: Record<string, unknown>;
  createdAt: Timestamp;
  /** Who did it (owner, member, API key, operator, customer); null for the engine's own events and older ones. */
  actor: Actor | null;
}

/** One DNS record the vendor publishes for its sender domain. */
export interface SenderDomainDnsRecord {
  purpose: 'ownership' | 'spf' | 'dkim';
  type: 'TXT';
  name: string;
  value: string;
  /** Whether the last check found it; null before any check. */
  verified: boolean | null;
}

/** The sender domain (`GET /account/sender-domain`); status `none` and null fields while none is claimed. */
export interface SenderDomainView {
  domain: string | null;
  status: 'none' | SenderDomainStatus;
  /** The From address of license-key e-mails while the domain is verified (else null). */
  senderEmail: string | null;
  /** The TXT records to publish: ownership, SPF and the DKIM public key. */
  records: SenderDomainDnsRecord[];
  createdAt: Timestamp | null;
  checkedAt: Timestamp | null;
  verifiedAt: Timestamp | null;
}

/** A dashboard session as the owner lists it (never its token). */
export interface SessionView {
  id: string;
  email: string;
  role: Role;
  createdAt: Timestamp;
  lastSeenAt: Timestamp;
  expiresAt: Timestamp;
}

/** A member of the account (someone the owner invited). */
export interface MemberView {
  id: string;
  email: string;
  role: 'member';
  createdAt: Timestamp;
}

