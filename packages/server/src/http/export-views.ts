import * as v from 'valibot';
import type * as engine from '@svc-licensing/license-engine';
import { int, ts, view } from './contract.js';
import { actor, eventType, customerPortal, environment, licenseStatus, locale, planKind, provider, signingKeyStatus } from './views.js';

/**
 * The `svc-account-export-v1` document of `POST /v1/account/export`: every record of the account
 * as the engine stores it, minus its secrets, each schema held equal to the engine's record type.
 */

const id = v.string();
const nullableString = v.nullable(v.string());

const AccountRecordView = view<engine.AccountRecord>()(v.strictObject({
  id, name: v.string(), ownerEmail: v.string(), servicePlan: v.string(), senderName: nullableString, senderEmail: nullableString,
  replyTo: nullableString, defaultLocale: locale, customerPortal, portalReleaseLimit: v.exactOptional(int), status: v.picklist(['open', 'closed']),
  closedAt: v.nullable(ts), createdAt: ts, updatedAt: ts,
}));
const SenderDomainRecordView = view<engine.ExportedSenderDomain>()(v.strictObject({
  id, accountId: id, domain: v.string(), status: v.picklist(['pending', 'verified', 'failed']), verifyToken: v.string(), spfMechanism: v.string(),
  dkimSelector: v.string(), dkimPublicKey: v.string(),
  checks: v.nullable(v.strictObject({ ownership: v.boolean(), spf: v.boolean(), dkim: v.boolean() })),
  createdAt: ts, updatedAt: ts, checkedAt: v.nullable(ts), verifiedAt: v.nullable(ts),
}));
const ApiKeyRecordView = view<engine.ExportedApiKey>()(v.strictObject({
  id, accountId: id, name: v.string(), prefix: v.string(), lastUsedAt: v.nullable(ts), createdAt: ts, createdBy: v.nullable(actor),
}));
const MemberRecordView = view<engine.MemberRecord>()(v.strictObject({ id, accountId: id, email: v.string(), createdAt: ts }));
const ProductRecordView = view<engine.ProductRecord>()(v.strictObject({
  id, accountId: id, name: v.string(), keyPrefix: v.string(), graceDays: int, offlineDays: int,
  // The revocation list's seq and instant (RVL1), once the product has a list: an import continues the seq.
  revocationSeq: v.exactOptional(int), revocationsAt: v.exactOptional(int),
  createdAt: ts, updatedAt: ts,
}));
const SigningKeyRecordView = view<engine.ExportedSigningKey>()(v.strictObject({
  id, accountId: id, productId: id, kid: v.string(), seq: int, publicKey: v.string(), status: signingKeyStatus, createdAt: ts, activatedAt: v.nullable(ts),
}));
const PlanRecordView = view<engine.PlanRecord>()(v.strictObject({
  id, accountId: id, productId: id, code: v.string(), name: v.string(), kind: planKind, maxActivations: int, entitlements: v.array(v.string()),
  maxMajor: v.nullable(int), trialDays: int, offlineDays: v.nullable(int), seatMode: v.exactOptional(v.picklist(['machine', 'floating'])),
  leaseSeconds: v.exactOptional(v.nullable(int)), maxBorrowDays: v.exactOptional(v.nullable(int)), maxBorrowedSeats: v.exactOptional(v.nullable(int)),
  createdAt: ts, updatedAt: ts,
}));
const CustomerRecordView = view<engine.CustomerRecord>()(v.strictObject({
  id, accountId: id, email: v.string(), name: v.string(), createdAt: ts, updatedAt: ts,
}));
const IntegrationRecordView = view<engine.ExportedIntegration>()(v.strictObject({
  id, accountId: id, productId: id, provider, environment, priceMap: v.record(v.string(), v.string()), createdAt: ts, updatedAt: ts,
  hasWebhookSecret: v.boolean(), hasApiKey: v.boolean(),
}));
const ProviderCustomerRecordView = view<engine.ProviderCustomerRecord>()(v.strictObject({
  id, accountId: id, integrationId: id, providerCustomerId: v.string(), email: v.string(), name: nullableString, createdAt: ts, updatedAt: ts,
}));
const LicenseRecordView = view<engine.ExportedLicense>()(v.strictObject({
  id, accountId: id, productId: id, planId: id, planCode: v.string(), customerId: id, customerEmail: v.string(), customerName: v.string(),
  status: licenseStatus, heldStatus: v.nullable(licenseStatus), seats: int, maxActivations: v.nullable(int),
  maxMajorOverride: v.nullable(v.strictObject({ value: v.nullable(int) })), paidUntil: v.nullable(ts), keyHash: v.string(), key: v.string(),
  provider: v.nullable(provider), integrationId: v.nullable(id), subscriptionId: nullableString, orderId: nullableString, lastEventKey: nullableString,
  activationCount: int, leaseSeq: v.exactOptional(int), locale, createdAt: ts, updatedAt: ts,
}));
const ActivationRecordView = view<engine.ActivationRecord>()(v.strictObject({
  id, accountId: id, licenseId: id, fingerprint: v.string(), name: nullableString, platform: nullableString, appVersion: nullableString,
  createdAt: ts, lastSeenAt: ts, leaseExpiresAt: v.exactOptional(v.nullable(ts)), borrowedUntil: v.exactOptional(v.nullable(ts)),
  lapseRecorded: v.exactOptional(v.nullable(ts)),
  // Unix seconds: the machine's certificates are issued from then on, after its last freeing (RVL1).
  certificatesFrom: v.exactOptional(v.nullable(int)),
}));
const RevocationEntryRecordView = view<engine.RevocationEntryRecord>()(v.strictObject({
  id, accountId: id, productId: id, licenseId: id, fingerprint: nullableString, freedAt: v.nullable(int), until: int,
}));
const ProcessedEventRecordView = view<engine.ProcessedEventRecord>()(v.strictObject({
  id, accountId: id, integrationId: id, eventId: v.string(), eventType: v.string(), result: v.string(), processedAt: ts,
  duplicateLoggedAt: v.exactOptional(v.nullable(ts)),
}));
const AuditEventRecordView = view<engine.AuditEventRecord>()(v.strictObject({
  id, accountId: id, type: eventType, licenseId: v.nullable(id), data: v.record(v.string(), v.unknown()), createdAt: ts,
  actor: v.exactOptional(v.nullable(actor)), actorKind: v.exactOptional(v.nullable(v.picklist(['owner', 'member', 'api_key', 'operator', 'customer']))),
}));

export const AccountExportView = view<engine.AccountExportDocument>()(v.strictObject({
  format: v.literal('svc-account-export-v1'),
  exportedAt: ts,
  exportId: id,
  account: AccountRecordView,
  senderDomain: v.nullable(SenderDomainRecordView),
  apiKeys: v.array(ApiKeyRecordView),
  members: v.array(MemberRecordView),
  products: v.array(ProductRecordView),
  signingKeys: v.array(SigningKeyRecordView),
  plans: v.array(PlanRecordView),
  customers: v.array(CustomerRecordView),
  integrations: v.array(IntegrationRecordView),
  providerCustomers: v.array(ProviderCustomerRecordView),
  licenses: v.array(LicenseRecordView),
  activations: v.array(ActivationRecordView),
  revocationEntries: v.array(RevocationEntryRecordView),
  processedEvents: v.array(ProcessedEventRecordView),
  auditEvents: v.array(AuditEventRecordView),
}));
