import type {
  AccountRecord,
  ActivationRecord,
  ApiKeyRecord,
  AuditEventRecord,
  CustomerRecord,
  IntegrationRecord,
  LicenseRecord,
  MemberRecord,
  PlanRecord,
  ProductRecord,
  Role,
  SessionRecord,
  SenderDomainRecord,
  SigningKeyRecord,
} from './records.js';
import { activationLimitOf, maxMajorOf, validUntilOf } from './effective.js';
import { dnsRecordsOf, verifiedSenderEmail } from './sender-domain.js';
import { isFloating, planSeatsOf, seatModeOf } from './plan-seats.js';
import { borrowOf, leaseStateOf } from './lease.js';
import type {
  AccountView,
  ActivationView,
  ApiKeyView,
  AuditEventView,
  CustomerView,
  IntegrationView,
  IntegrationWarning,
  LicenseView,
  MemberView,
  PlanView,
  ProductView,
  SenderDomainView,
  SessionView,
  SigningKeyView,
} from './views.js';

/** Records to the API-shaped objects of `views.ts`, field for field (no I/O). */

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
    ...planSeatsOf(p),
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

/** An activation as the API shows it; its lease state as of `nowMs` (null fields on a machine plan). */
export function activationView(a: ActivationRecord, nowMs: number): ActivationView {
  return {
    id: a.id,
    fingerprint: a.fingerprint,
    name: a.name,
    platform: a.platform,
    appVersion: a.appVersion,
    createdAt: a.createdAt,
    lastSeenAt: a.lastSeenAt,
    leaseExpiresAt: a.leaseExpiresAt ?? null,
    borrowedUntil: borrowOf(a, nowMs),
    leaseState: leaseStateOf(a, nowMs),
  };
}

/**
 * A license as the API shows it. `leases`: on a floating plan, the live and borrowed leases of its
 * activations now (`leaseCounts`); ignored on a machine plan (the view's counts are null).
 */
export function licenseView(l: LicenseRecord, plan: PlanRecord, product: ProductRecord, leases: { live: number; borrowed: number } = { live: 0, borrowed: 0 }): LicenseView {
  const floating = isFloating(plan);
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
    seatMode: seatModeOf(plan),
    liveLeases: floating ? leases.live : null,
    borrowedLeases: floating ? leases.borrowed : null,
    createdAt: l.createdAt,
    updatedAt: l.updatedAt,
  };
}

export function customerView(c: CustomerRecord, licenseCount: number): CustomerView {
  return { id: c.id, email: c.email, name: c.name, licenseCount };
}

/** The integration as notifications carry it: its view without `warnings` (the host adds some). */
export function integrationFields(i: IntegrationRecord): Omit<IntegrationView, 'warnings'> {
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

export function integrationView(i: IntegrationRecord, warnings: IntegrationWarning[] = []): IntegrationView {
  return { ...integrationFields(i), warnings };
}

export function apiKeyView(k: ApiKeyRecord): ApiKeyView {
  return { id: k.id, name: k.name, prefix: k.prefix, lastUsedAt: k.lastUsedAt, createdAt: k.createdAt, createdBy: k.createdBy ?? null };
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
  return { ...auditEventViewSharingData(e), data: structuredClone(e.data) };
}

/**
 * {@link auditEventView} with the record's own `data` in it, not a copy: only for a view encoded
 * to JSON at once and never kept (a notification's body), where the copy was its largest cost.
 */
export function auditEventViewSharingData(e: AuditEventRecord): AuditEventView {
  const actor = e.actor ? { kind: e.actor.kind, email: e.actor.email, apiKeyId: e.actor.apiKeyId } : null;
  return { id: e.id, type: e.type, license: e.licenseId, data: e.data, createdAt: e.createdAt, actor };
}

export function sessionView(s: SessionRecord, role: Role): SessionView {
  return { id: s.id, email: s.email, role, createdAt: s.createdAt, lastSeenAt: s.lastSeenAt, expiresAt: s.expiresAt };
}

export function memberView(m: MemberRecord): MemberView {
  return { id: m.id, email: m.email, role: 'member', createdAt: m.createdAt };
}
