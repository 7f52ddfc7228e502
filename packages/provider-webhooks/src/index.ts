export { WebhookParseError } from './_internal/errors.js';
export type { WebhookParseErrorCode } from './_internal/errors.js';
export type {
  RawBody,
  WebhookSecret,
  HeadersInput,
  SignatureFailureReason,
  SignatureResult,
  ParseResult,
} from './_internal/types.js';
export {
  PROVIDER_A_SIGNATURE_HEADER,
  PROVIDER_A_TOLERANCE_SECONDS,
  verifyProviderASignature,
  signProviderA,
} from './provider-a-signature.js';
export type { VerifyProviderAInput } from './provider-a-signature.js';
export { PROVIDER_B_SIGNATURE_HEADER, verifyProviderBSignature, signProviderB } from './provider-b-signature.js';
export type { VerifyProviderBInput } from './provider-b-signature.js';
export { PROVIDER_A_EVENT_TYPES, PROVIDER_A_STATUS_MAP, parseProviderAEvent } from './provider-a-events.js';
export { PROVIDER_B_EVENT_TYPES, PROVIDER_B_STATUS_MAP, parseProviderBEvent } from './provider-b-events.js';
export { readWebhook } from './read-webhook.js';
export { describeSignatureFailure } from './signature-failure.js';
export type { ReadWebhookInput, ReadWebhookResult } from './read-webhook.js';
