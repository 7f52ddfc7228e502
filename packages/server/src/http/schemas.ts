import * as v from 'valibot';
import { LICENSE_STATUSES } from '@svc-licensing/cert-format';
import { AUDIT_EVENT_TYPES, isTimestamp } from '@svc-licensing/license-engine';

/**
 * Request schemas of the HTTP API. The same schemas validate requests and generate
 * `GET /v1/openapi.json` (see openapi.ts). Vendor bodies are strict: an unknown field is
 * refused with `invalid_request` naming it, so a typo never silently does nothing.
 */

const name = v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200, 'at most 200 characters'));
const optionalText = v.pipe(v.string(), v.maxLength(200, 'at most 200 characters'));
const int = (min: number, max: number) =>
  v.pipe(v.number(), v.integer('must be an integer'), v.minValue(min, `must be >= ${min}`), v.maxValue(max, `must be <= ${max}`));
const offlineDays = int(1, 365);
const id = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(64, 'at most 64 characters'));
const email = v.pipe(v.string(), v.trim(), v.email('must be an e-mail address'), v.maxLength(254, 'at most 254 characters'));
/** `YYYY-MM-DDThh:mm:ssZ` naming a real instant (no Feb 30, no T24:00:00); a fraction of a second is dropped. */
const timestamp = v.pipe(
  v.string(),
  v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/, 'must be a timestamp YYYY-MM-DDThh:mm:ssZ'),
  v.check((value: string) => isTimestamp(value), 'must be a real calendar date and time'),
);
const locale = v.picklist(['en', 'fr'], 'must be en or fr');
const cursor = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(512, 'at most 512 characters'));
const licenseStatus = v.picklist(LICENSE_STATUSES, 'must be a license status');

/** `?cursor=` of every list. */
export const PageQuery = v.strictObject({ cursor: v.optional(cursor) });

export const CreateProductBody = v.strictObject({
  name,
  keyPrefix: v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,15}$/, 'must be 1-16 letters, digits or hyphens')),
  graceDays: v.optional(int(0, 365)),
  offlineDays: v.optional(offlineDays),
});
export const UpdateProductBody = v.partial(CreateProductBody);

/** The lease fields of a floating plan (docs/floating-seats.md); the engine refuses them on a machine plan. */
const leaseFields = {
  leaseSeconds: v.optional(int(120, 86_400)),
  maxBorrowDays: v.optional(int(0, 365)),
  maxBorrowedSeats: v.optional(v.nullable(int(0, 100_000))),
};
export const CreatePlanBody = v.strictObject({
  code: v.pipe(v.string(), v.regex(/^[a-z0-9]+(?:[-_][a-z0-9]+)*$/, 'must be a lowercase slug'), v.maxLength(64, 'at most 64 characters')),
  name: v.optional(name),
  kind: v.picklist(['subscription', 'perpetual', 'trial'], 'must be subscription, perpetual or trial'),
  maxActivations: v.optional(int(1, 100_000)),
  entitlements: v.optional(v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(100)))),
  maxMajor: v.optional(v.nullable(int(0, 1_000_000))),
  trialDays: v.optional(int(1, 3650)),
  offlineDays: v.optional(v.nullable(offlineDays)),
  seatMode: v.optional(v.picklist(['machine', 'floating'], 'must be machine or floating')),
  ...leaseFields,
});
export const UpdatePlanBody = v.strictObject({
  name: v.optional(name),
  maxActivations: v.optional(int(1, 100_000)),
  entitlements: v.optional(v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(100)))),
  maxMajor: v.optional(v.nullable(int(0, 1_000_000))),
  trialDays: v.optional(int(1, 3650)),
  offlineDays: v.optional(v.nullable(offlineDays)),
  ...leaseFields,
});

export const ListLicensesQuery = v.strictObject({
  product: v.optional(id),
  status: v.optional(licenseStatus),
  email: v.optional(email),
  q: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
  key: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(100))),
  cursor: v.optional(cursor),
});
export const CreateLicenseBody = v.strictObject({
  plan: id,
  product: v.optional(id),
  email,
  name: v.optional(optionalText),
  seats: v.optional(int(1, 100_000)),
  paidUntil: v.optional(timestamp),
  sendEmail: v.optional(v.boolean('must be a boolean')),
  locale: v.optional(locale),
});
export const UpdateLicenseBody = v.strictObject({
  paidUntil: v.optional(timestamp),
  seats: v.optional(int(1, 100_000)),
  maxActivations: v.optional(v.nullable(int(1, 100_000))),
  maxMajor: v.optional(v.nullable(int(0, 1_000_000))),
});

export const ListCustomersQuery = v.strictObject({
  email: v.optional(email),
  q: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
  cursor: v.optional(cursor),
});
export const ListEventsQuery = v.strictObject({
  license: v.optional(id),
  actor: v.optional(v.picklist(['owner', 'member', 'api_key', 'operator', 'customer'], 'must be owner, member, api_key, operator or customer')),
  cursor: v.optional(cursor),
});

const provider = v.picklist(['provider_a', 'provider_b'], 'must be provider_a or provider_b');
const environment = v.picklist(['sandbox', 'live'], 'must be sandbox or live');
const secret = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(1000, 'at most 1000 characters'));
const priceMap = v.record(v.pipe(v.string(), v.minLength(1), v.maxLength(200)), v.pipe(v.string(), v.minLength(1), v.maxLength(64)));
export const CreateIntegrationBody = v.pipe(
  v.strictObject({
    provider,
    product: id,
    environment: v.optional(environment),
    webhookSecret: v.optional(secret),
    priceMap: v.optional(priceMap),
    apiKey: v.optional(secret),
  }),
  v.forward(
    v.check((input) => input.apiKey === undefined || input.provider === 'provider_a', 'is only for provider_a'),
    ['apiKey'],
  ),
);
export const UpdateIntegrationBody = v.strictObject({
  environment: v.optional(environment),
  webhookSecret: v.optional(secret),
  apiKey: v.optional(v.nullable(secret)),
  priceMap: v.optional(priceMap),
});

export const CreateApiKeyBody = v.strictObject({ name });

const customerPortal = v.variant('mode', [
  v.strictObject({ mode: v.literal('svc') }),
  v.strictObject({ mode: v.literal('custom'), url: v.pipe(v.string(), v.url('must be a URL'), v.startsWith('https://', 'must be an https URL')) }),
  v.strictObject({ mode: v.literal('none') }),
], 'mode must be svc, custom or none');
export const UpdateAccountBody = v.strictObject({
  name: v.optional(name),
  senderName: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(100, 'at most 100 characters')))),
  senderEmail: v.optional(v.nullable(email)),
  replyTo: v.optional(v.nullable(v.union([v.literal(''), email], 'must be an e-mail address or empty'))),
  defaultLocale: v.optional(locale),
  customerPortal: v.optional(customerPortal),
  /** Machines a customer may free in the service-hosted portal per license and 30 days (default 3; 0 turns self-service release off). */
  portalReleaseLimit: v.optional(int(0, 100)),
});

/** The engine checks the name itself (labels, length); the schema only bounds the text. */
export const ClaimSenderDomainBody = v.strictObject({
  domain: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(253, 'at most 253 characters')),
});

const fingerprint = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters'));
const licenseKey = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(100, 'at most 100 characters'));
const clientText = (max: number) => v.pipe(v.string(), v.maxLength(max, `at most ${max} characters`));
export const ActivateBody = v.object({
  product: id,
  key: licenseKey,
  fingerprint,
  name: v.optional(clientText(200)),
  platform: v.optional(clientText(100)),
  appVersion: v.optional(clientText(100)),
});
/** `POST /activations/offline`: an air-gapped machine's request (format SVCREQ1), and the license when it carries no key. */
export const OfflineActivationBody = v.strictObject({
  request: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(8192, 'at most 8192 characters')),
  license: v.optional(id),
});
export const ValidateBody = v.object({
  product: id,
  key: licenseKey,
  fingerprint,
  platform: v.optional(clientText(100)),
  appVersion: v.optional(clientText(100)),
});
export const DeactivateBody = v.object({ product: id, key: licenseKey, fingerprint });
/** `POST /licenses/borrow` (floating plans): `days` is checked against the plan's `maxBorrowDays` by the engine. */
export const BorrowBody = v.object({
  product: id,
  key: licenseKey,
  fingerprint,
  days: int(1, 365),
  name: v.optional(clientText(200)),
  platform: v.optional(clientText(100)),
  appVersion: v.optional(clientText(100)),
});

/** `POST /v1/session/link` and `POST /v1/members`: one e-mail address. */
export const EmailBody = v.strictObject({ email });

// Notifications to the vendor (issue 28): the URL's safety rules are checked by the route (they
// depend on the operator's --notify-allow), the rest here and in the engine.
const eventTypes = v.array(
  v.picklist(
    AUDIT_EVENT_TYPES,
    'must be an event type',
  ),
);
export const CreateWebhookEndpointBody = v.strictObject({
  url: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(2048, 'at most 2048 characters')),
  description: v.optional(v.pipe(v.string(), v.maxLength(500, 'at most 500 characters'))),
  events: v.optional(eventTypes),
  enabled: v.optional(v.boolean()),
});
export const UpdateWebhookEndpointBody = v.partial(CreateWebhookEndpointBody);
