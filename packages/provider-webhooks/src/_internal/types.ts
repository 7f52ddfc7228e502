import type { PaymentCommand } from '@svc-licensing/license-engine';
import type { WebhookParseError } from './errors.js';

/**
 * A raw request body exactly as received: the bytes, or a string of them decoded as UTF-8.
 *
 * @example
 * ```ts
 * const rawBody: RawBody = new Uint8Array(await request.arrayBuffer());
 * ```
 */
export type RawBody = string | Uint8Array;

/**
 * A webhook secret: the text the provider shows, or its bytes.
 *
 * @example
 * ```ts
 * const secret: WebhookSecret = process.env.PROVIDER_B_WEBHOOK_SECRET ?? '';
 * ```
 */
export type WebhookSecret = string | Uint8Array;

/**
 * Request headers: a plain object (Node's `IncomingHttpHeaders`, any letter case) or anything with a
 * `get(name)` method (the Fetch API's `Headers`).
 *
 * @example
 * ```ts
 * readWebhook('provider_b', { rawBody, headers: { 'x-signature': sig }, secret }); // or headers: request.headers
 * ```
 */
export type HeadersInput =
  | { get(name: string): string | null | undefined }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * Why a signature check failed. Every one of them is answered `401`.
 *
 * @example
 * ```ts
 * const reason: SignatureFailureReason = 'timestamp_out_of_range';
 * ```
 */
export type SignatureFailureReason =
  /** The signature header is absent or empty. */
  | 'missing_header'
  /** The header is not of the provider's form (provider_a: `ts=<digits>;h1=<64 hex>`). */
  | 'malformed_header'
  /** provider_a: `ts` is more than the tolerance away from now, in either direction. */
  | 'timestamp_out_of_range'
  /** No signature in the header matches the body under the secret. */
  | 'signature_mismatch'
  /** No secret is saved for the integration yet. */
  | 'missing_secret';

/**
 * Outcome of a signature check: expected failures are data, not exceptions.
 *
 * @example
 * ```ts
 * const check: SignatureResult = verifyProviderBSignature({ rawBody, signature, secret });
 * if (!check.ok) log.warn('webhook refused', check.reason);
 * ```
 */
export type SignatureResult = { ok: true } | { ok: false; reason: SignatureFailureReason };

/**
 * Outcome of parsing a verified body.
 *
 * @example
 * ```ts
 * const parsed: ParseResult = parseProviderBEvent(rawBody);
 * if (parsed.ok) await engine.applyPaymentCommand(integrationId, parsed.command);
 * ```
 */
export type ParseResult = { ok: true; command: PaymentCommand } | { ok: false; error: WebhookParseError };
