/**
 * Response shapes of the public `/v1` API, as the spec and `/v1/openapi.json` describe them.
 * Where the server answers with the engine's view unchanged, the type is the engine's own (a type-only
 * import: esbuild erases it, so no engine code reaches the browser bundles).
 */

import type {
  ActivationView,
  ApiKeyCreatedView,
  ApiKeyView,
  AuditEventView,
  CustomerDetailView,
  CustomerView,
  IntegrationView,
  LicenseDetailView,
  LicenseView,
  MemberView,
  PlanView,
  ProductView,
  SessionView,
  SigningKeyView,
  UsageView,
} from '@svc-licensing/license-engine';

export type Timestamp = string;
export type LicenseStatus = LicenseView['status'];
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

/** An entry of `GET /v1/sessions` (owner only): the engine's view plus whether it is the caller's. */
export type SessionInfo = SessionView & { current: boolean };

export type Product = ProductView;

export type SigningKey = SigningKeyView;

export type Plan = PlanView;

export type Activation = ActivationView;

export type License = LicenseView;

export type LicenseDetail = LicenseDetailView;

export type Customer = CustomerView;

export type CustomerDetail = CustomerDetailView;

/** The engine's view plus the URL the server gives the provider for webhooks. */
export type Integration = IntegrationView & { webhookUrl: string };

export type ApiKey = ApiKeyView;

export type CreatedApiKey = ApiKeyCreatedView;

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

export type Usage = UsageView;

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

export type AuditEvent = AuditEventView;

/** A member of the account (`GET /v1/members`; the owner is not listed). */
export type Member = MemberView;
