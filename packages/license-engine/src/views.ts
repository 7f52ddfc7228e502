import type { LicenseStatus } from '@svc-licensing/cert-format';
import type {
  AccountRecord,
  ActivationRecord,
  ApiKeyRecord,
  AuditEventRecord,
  AuditEventType,
  CustomerPortal,
  CustomerRecord,
  Environment,
  IntegrationRecord,
  LicenseRecord,
  Locale,
  MemberRecord,
  PlanKind,
  PlanRecord,
  ProductRecord,
  ProviderName,
  Role,
  SessionRecord,
  SenderDomainRecord,
  SenderDomainStatus,
  SigningKeyRecord,
  SigningKeyStatus,
  Timestamp,
} from './records.js';
import { activationLimitOf, maxMajorOf, validUntilOf } from './_internal/effective.js';
import { dnsRecordsOf, verifiedSenderEmail, type SenderDomainDnsRecord } from './_internal/sender-domain.js';

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
  activationCount: number;
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

export interface IntegrationView {
  id: string;
  provider: ProviderName;
  product: string;
  environment: Environment;
  priceMap: Record<string, string>;
  hasWebhookSecret: boolean;
  hasApiKey: boolean;
}

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  lastUsedAt: Timestamp | null;
  createdAt: Timestamp;
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
}

export function productView(p: ProductRecord): ProductView {
  return { id: p.id, name: p.name, keyPrefix: p.keyPrefix, graceDays: p.graceDays, offlineDays: p.offlineDays, createdAt: p.createdAt };
}

export function signingKeyView(k: SigningKeyRecord): SigningKeyView {
  return { kid: k.kid, publicKey: k.publicKey, status: k.status, createdAt: k.createdAt, activatedAt: k.activatedAt };
}

export function planView(p: PlanRecord): PlanView {
  return {
    id: p.id,
    product: p.productId,
    code: p.code,
    name: p.name,
    kind: p.kind,
    maxActivations: p.maxActivations,
    entitlements: [...p.entitlements],
    maxMajor: p.maxMajor,
    trialDays: p.trialDays,
    offlineDays: p.offlineDays,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

export function activationView(a: ActivationRecord): ActivationView {
  return {
    id: a.id,
    fingerprint: a.fingerprint,
    name: a.name,
    platform: a.platform,
    appVersion: a.appVersion,
    createdAt: a.createdAt,
    lastSeenAt: a.lastSeenAt,
  };
}

export function licenseView(l: LicenseRecord, plan: PlanRecord, product: ProductRecord): LicenseView {
  return {
    id: l.id,
    product: l.productId,
    plan: plan.code,
    planId: plan.id,
    planName: plan.name,
    customer: { id: l.customerId, email: l.customerEmail, name: l.customerName },
    status: l.status,
    seats: l.seats,
    maxActivations: l.maxActivations,
    activationLimit: activationLimitOf(l, plan),
    maxMajor: maxMajorOf(l, plan),
    entitlements: [...plan.entitlements],
    paidUntil: l.paidUntil,
    validUntil: validUntilOf(l, product),
    provider: l.provider,
    activationCount: l.activationCount,
    createdAt: l.createdAt,
    updatedAt: l.updatedAt,
  };
}

export function customerView(c: CustomerRecord, licenseCount: number): CustomerView {
  return { id: c.id, email: c.email, name: c.name, licenseCount };
}

export function integrationView(i: IntegrationRecord): IntegrationView {
  return {
    id: i.id,
    provider: i.provider,
    product: i.productId,
    environment: i.environment,
    priceMap: { ...i.priceMap },
    hasWebhookSecret: i.webhookSecret !== null,
    hasApiKey: i.apiKey !== null,
  };
}

export function apiKeyView(k: ApiKeyRecord): ApiKeyView {
  return { id: k.id, name: k.name, prefix: k.prefix, lastUsedAt: k.lastUsedAt, createdAt: k.createdAt };
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

export function senderDomainView(d: SenderDomainRecord, account: AccountRecord): SenderDomainView {
  return {
    domain: d.domain,
    status: d.status,
    senderEmail: d.status === 'verified' ? verifiedSenderEmail(d, account) : null,
    records: dnsRecordsOf(d),
    createdAt: d.createdAt,
    checkedAt: d.checkedAt,
    verifiedAt: d.verifiedAt,
  };
}

export function accountView(a: AccountRecord): AccountView {
  return {
    id: a.id,
    name: a.name,
    ownerEmail: a.ownerEmail,
    plan: a.servicePlan,
    portalUrl: a.customerPortal.mode === 'custom' ? a.customerPortal.url : null,
    senderName: a.senderName,
    senderEmail: a.senderEmail,
    replyTo: a.replyTo,
    defaultLocale: a.defaultLocale,
    customerPortal: { ...a.customerPortal },
    portalReleaseLimit: a.portalReleaseLimit ?? 3,
    status: a.status,
    closedAt: a.closedAt,
    createdAt: a.createdAt,
  };
}

export function auditEventView(e: AuditEventRecord): AuditEventView {
  return { id: e.id, type: e.type, license: e.licenseId, data: structuredClone(e.data), createdAt: e.createdAt };
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

export function sessionView(s: SessionRecord, role: Role): SessionView {
  return { id: s.id, email: s.email, role, createdAt: s.createdAt, lastSeenAt: s.lastSeenAt, expiresAt: s.expiresAt };
}

/** A member of the account (someone the owner invited). */
export interface MemberView {
  id: string;
  email: string;
  role: 'member';
  createdAt: Timestamp;
}

export function memberView(m: MemberRecord): MemberView {
  return { id: m.id, email: m.email, role: 'member', createdAt: m.createdAt };
}
