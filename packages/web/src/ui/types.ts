/** Response shapes of the public `/v1` API, as the spec and `/v1/openapi.json` describe them. */

export type Timestamp = string;
export type LicenseStatus = 'active' | 'past_due' | 'canceled' | 'perpetual' | 'expired' | 'suspended' | 'refunded' | 'revoked';
export const LICENSE_STATUSES: readonly LicenseStatus[] = ['active', 'past_due', 'canceled', 'perpetual', 'expired', 'suspended', 'refunded', 'revoked'];

/** `GET /v1/session`: who is calling. The dashboard only ever calls with a session. */
export interface Session {
  kind: 'session' | 'api_key';
  accountId: string;
  email: string | null;
  role: 'owner' | 'member' | null;
  sessionId: string | null;
  [key: string]: unknown;
}

/** An entry of `GET /v1/sessions` (owner only). */
export interface SessionInfo {
  id: string;
  email: string;
  role: 'owner' | 'member';
  createdAt: Timestamp;
  lastSeenAt: Timestamp;
  expiresAt: Timestamp;
  current: boolean;
}

export interface Product {
  id: string;
  name: string;
  keyPrefix: string;
  graceDays: number;
  offlineDays: number;
  createdAt: Timestamp;
}

export interface SigningKey {
  kid: string;
  publicKey: string;
  status: 'pending' | 'active' | 'retired';
  createdAt: Timestamp;
  activatedAt: Timestamp | null;
}

export interface Plan {
  id: string;
  product?: string;
  code: string;
  name: string;
  kind: 'subscription' | 'perpetual' | 'trial';
  maxActivations: number;
  entitlements: string[];
  maxMajor: number | null;
  trialDays: number;
  offlineDays: number | null;
}

export interface Activation {
  id: string;
  fingerprint: string;
  name: string | null;
  platform: string | null;
  appVersion: string | null;
  createdAt: Timestamp;
  lastSeenAt: Timestamp;
}

export interface License {
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
  provider: string | null;
  activationCount: number;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface LicenseDetail extends License {
  key: string;
  activations: Activation[];
}

export interface Customer {
  id: string;
  email: string;
  name: string;
  licenseCount: number;
}

export interface CustomerDetail {
  id: string;
  email: string;
  name: string;
  licenses: License[];
}

export interface Integration {
  id: string;
  provider: 'provider_a' | 'provider_b';
  product: string;
  environment: 'sandbox' | 'live';
  priceMap: Record<string, string>;
  hasWebhookSecret: boolean;
  hasApiKey: boolean;
  webhookUrl: string;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  lastUsedAt: Timestamp | null;
  createdAt?: Timestamp;
}

export interface CreatedApiKey extends ApiKey {
  key: string;
}

export type PortalMode = { mode: 'svc' } | { mode: 'custom'; url: string } | { mode: 'none' };

export interface Account {
  id: string;
  name: string;
  ownerEmail: string;
  /** The service plan. */
  plan: string;
  portalUrl: string | null;
  senderName: string | null;
  senderEmail: string | null;
  replyTo: string | null;
  defaultLocale: 'en' | 'fr';
  customerPortal: PortalMode;
  status: 'open' | 'closed';
  closedAt: Timestamp | null;
  createdAt: Timestamp;
}

/** `GET /v1/account/billing`. */
export interface Billing {
  plan: string;
  interval?: string | null;
  status?: string | null;
  currentPeriodEnd?: Timestamp | null;
  cancelAt?: Timestamp | null;
  [key: string]: unknown;
}

export interface Usage {
  plan: string;
  activeLicenses: number;
  licenseLimit: number | null;
  products: number;
  productLimit: number | null;
  overLimit: boolean;
}

/** A DNS record to publish for the sender domain, with the outcome of the last check. */
export interface DnsRecord {
  purpose: 'ownership' | 'spf' | 'dkim' | string;
  type: string;
  name: string;
  value: string;
  verified: boolean | null;
}

/** `GET /v1/account/sender-domain`: status `none` while no domain is claimed. */
export interface SenderDomain {
  domain: string | null;
  status: 'none' | 'pending' | 'verified' | 'failed' | string;
  senderEmail?: string | null;
  records: DnsRecord[];
  checkedAt?: Timestamp | null;
  verifiedAt?: Timestamp | null;
}

export interface AuditEvent {
  id: string;
  type: string;
  license: string | null;
  data: Record<string, unknown>;
  createdAt: Timestamp;
}

/** A member of the account (`GET /v1/members`; the owner is not listed). */
export interface Member {
  id: string;
  email: string;
  role: 'member';
  createdAt: Timestamp;
}
