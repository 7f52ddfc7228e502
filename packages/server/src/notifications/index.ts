/**
 * Outgoing notifications to the vendor's backend (issue 28): Standard Webhooks signing, the
 * endpoint URL's safety rules, one delivery attempt, the retry schedule, and the dispatcher over
 * the outbox port. Plain modules without h3; the routes and the store build on them.
 */
export { classifyAddress, describeRange, effectiveAddress, parseAddress } from './address-policy.js';
export type { AddressVerdict, RefusedRange } from './address-policy.js';
export { dnsServerResolver, pinnedLookup, systemResolver } from './address-resolver.js';
export { NO_ALLOWANCE, allowsAddress, allowsHost, parseNotifyAllowance } from './allowance.js';
export type { AllowanceParse, NotifyAllowance } from './allowance.js';
export type { AttemptError, AttemptErrorCode, AttemptResult } from './attempt-result.js';
export { startDispatcher } from './dispatcher.js';
export type { DispatchLogEntry, Dispatcher, DispatcherOptions } from './dispatcher.js';
export { MAX_URL_LENGTH, checkEndpointUrl, resolveEndpointAddresses } from './endpoint-url.js';
export type { AddressCheck, AddressResolver, CheckedUrl, ResolvedAddress, UrlRefusal, UrlRefusalCode } from './endpoint-url.js';
export { createMemoryOutbox } from './memory-outbox.js';
export { createStoreOutbox } from './store-outbox.js';
export { startNotifications } from './run.js';
export type { Notifications, NotificationsOptions } from './run.js';
export { endpointDisabledEmail } from './endpoint-disabled-email.js';
export type { EndpointDisabledEmail } from './endpoint-disabled-email.js';
export type { MemoryOutbox, OutboxDelivery, OutboxEndpoint } from './memory-outbox.js';
export type {
  AttemptRecord, AttemptToRecord, ClaimedDelivery, DeliveryOutcome, EndpointDisabledReason, OutboxPort, RecordedAttempt,
} from './outbox-port.js';
export { RETRY_DELAYS_MS, RETRY_JITTER, RETRY_WINDOW_MS, nextAttemptAt } from './retry-schedule.js';
export type { FailedAttempts } from './retry-schedule.js';
export { SECRET_BYTES, SECRET_PREFIX, generateWebhookSecret, webhookBody, webhookHeaders, webhookSignature } from './signature.js';
export type { WebhookEvent, WebhookMessage } from './signature.js';
export { ROTATION_OVERLAP_MS, activeSigningSecrets, rotateSigningSecrets } from './signing-secrets.js';
export type { SigningSecrets } from './signing-secrets.js';
export { ATTEMPT_TIMEOUT_MS, MAX_RESPONSE_BYTES, createWebhookSender } from './webhook-sender.js';
export type { AttemptRequest, WebhookSender, WebhookSenderOptions } from './webhook-sender.js';
