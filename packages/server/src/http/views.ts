import * as v from 'valibot';

/**
 * Response shapes, for the OpenAPI document only (the engine builds the views). Loose objects:
 * fields the spec leaves open may be present.
 */
const ts = v.pipe(v.string(), v.description('YYYY-MM-DDThh:mm:ssZ'));
const nullableInt = v.nullable(v.number());
const licenseStatus = v.picklist(['active', 'past_due', 'canceled', 'perpetual', 'expired', 'suspended', 'refunded', 'revoked']);

/** `{ data, nextCursor }` of a list. */
export function listOf(item: v.GenericSchema): v.GenericSchema {
  return v.object({ data: v.array(item), nextCursor: v.nullable(v.string()) });
}

export const ErrorBodyView = v.object({ error: v.object({ code: v.string(), message: v.string() }) });

export const ProductView = v.looseObject({
  id: v.string(), name: v.string(), keyPrefix: v.string(), graceDays: v.number(), offlineDays: v.number(), createdAt: ts,
});
export const SigningKeyView = v.looseObject({
  kid: v.string(), publicKey: v.string(), status: v.picklist(['pending', 'active', 'retired']), createdAt: ts, activatedAt: v.nullable(ts),
});
export const PlanView = v.looseObject({
  id: v.string(), code: v.string(), name: v.string(), kind: v.picklist(['subscription', 'perpetual', 'trial']),
  maxActivations: v.number(), entitlements: v.array(v.string()), maxMajor: nullableInt, trialDays: v.number(), offlineDays: nullableInt,
});
export const ActivationView = v.looseObject({
  id: v.string(), fingerprint: v.string(), name: v.nullable(v.string()), platform: v.nullable(v.string()),
  appVersion: v.nullable(v.string()), createdAt: ts, lastSeenAt: ts,
});
const licenseFields = {
  id: v.string(), product: v.string(), plan: v.string(), planId: v.string(), planName: v.string(),
  customer: v.object({ id: v.string(), email: v.string(), name: v.string() }),
  status: licenseStatus, seats: v.number(), maxActivations: nullableInt, activationLimit: v.number(), maxMajor: nullableInt,
  entitlements: v.array(v.string()), paidUntil: v.nullable(ts), validUntil: v.nullable(ts), provider: v.nullable(v.string()),
  activationCount: v.number(), createdAt: ts, updatedAt: ts,
};
export const LicenseView = v.looseObject(licenseFields);
export const LicenseDetailView = v.looseObject({ ...licenseFields, key: v.string(), activations: v.array(ActivationView) });
export const CustomerView = v.looseObject({ id: v.string(), email: v.string(), name: v.string(), licenseCount: v.number() });
export const CustomerDetailView = v.looseObject({ id: v.string(), email: v.string(), name: v.string(), licenses: v.array(LicenseView) });
export const IntegrationView = v.looseObject({
  id: v.string(), provider: v.picklist(['provider_a', 'provider_b']), product: v.string(), environment: v.picklist(['sandbox', 'live']),
  priceMap: v.record(v.string(), v.string()), hasWebhookSecret: v.boolean(), hasApiKey: v.boolean(), webhookUrl: v.string(),
});
export const DeletedView = v.object({ id: v.string(), deleted: v.literal(true) });
export const ApiKeyView = v.looseObject({ id: v.string(), name: v.string(), prefix: v.string(), lastUsedAt: v.nullable(ts) });
export const ApiKeyCreatedView = v.looseObject({ id: v.string(), name: v.string(), prefix: v.string(), key: v.string() });
export const AccountView = v.looseObject({ name: v.string() });
export const UsageView = v.looseObject({
  plan: v.string(), activeLicenses: v.number(), licenseLimit: nullableInt, products: v.number(), productLimit: nullableInt, overLimit: v.boolean(),
});
export const BillingView = v.looseObject({ plan: v.string() });
export const SenderDomainView = v.looseObject({
  domain: v.nullable(v.string()),
  status: v.picklist(['none', 'pending', 'verified', 'failed']),
  senderEmail: v.nullable(v.string()),
  records: v.array(v.object({
    purpose: v.picklist(['ownership', 'spf', 'dkim']), type: v.literal('TXT'), name: v.string(), value: v.string(), verified: v.nullable(v.boolean()),
  })),
  createdAt: v.nullable(ts), checkedAt: v.nullable(ts), verifiedAt: v.nullable(ts),
});
export const EventView = v.looseObject({ id: v.string(), type: v.string(), license: v.nullable(v.string()), data: v.record(v.string(), v.unknown()), createdAt: ts });
export const ActivateResultView = v.object({ certificate: v.string(), activation: v.string() });
export const OfflineActivationView = v.object({
  certificate: v.string(),
  activation: v.string(),
  license: v.string(),
  product: v.string(),
  fingerprint: v.string(),
});
export const ValidateResultView = v.object({ certificate: v.string() });
export const DeactivateResultView = v.object({ deactivated: v.literal(true) });
export const HealthView = v.object({ status: v.literal('ok') });
export const ReadyView = v.object({ status: v.literal('ready') });
export const PrincipalView = v.looseObject({
  kind: v.picklist(['api_key', 'session']), accountId: v.string(), email: v.nullable(v.string()),
  role: v.nullable(v.picklist(['owner', 'member'])), sessionId: v.nullable(v.string()), apiKeyId: v.nullable(v.string()),
});
export const SessionView = v.looseObject({
  id: v.string(), email: v.string(), role: v.picklist(['owner', 'member']), createdAt: ts, lastSeenAt: ts, expiresAt: ts, current: v.boolean(),
});
export const MemberView = v.looseObject({ id: v.string(), email: v.string(), role: v.literal('member'), createdAt: ts });
export const AcceptedView = v.object({ accepted: v.literal(true) });
export const SignedOutView = v.object({ signedOut: v.literal(true) });
export const SigningKeyExportView = v.looseObject({
  format: v.literal('svc-signing-keys-v1'), exportedAt: ts, product: v.object({ id: v.string(), name: v.string(), keyPrefix: v.string() }),
  certificateFormat: v.literal('CRT1'),
  keys: v.array(v.looseObject({
    kid: v.string(), status: v.picklist(['pending', 'active', 'retired']), publicKey: v.string(), privateKey: v.string(),
    privateKeyPkcs8: v.string(), createdAt: ts, activatedAt: v.nullable(ts),
  })),
});
