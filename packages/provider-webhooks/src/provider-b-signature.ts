import { hasSecret, hexDigestMatches, hmacSha256 } from './_internal/hmac.js';
import type { RawBody, SignatureResult, WebhookSecret } from './_internal/types.js';

/**
 * Name of provider_b's signature header.
 *
 * @example
 * ```ts
 * const signature = request.headers.get(PROVIDER_B_SIGNATURE_HEADER); // 64 hex digits
 * ```
 */
export const PROVIDER_B_SIGNATURE_HEADER = 'X-Signature';

/**
 * Input of {@link verifyProviderBSignature}.
 *
 * @example
 * ```ts
 * const input: VerifyProviderBInput = { rawBody, signature: headers.get('X-Signature'), secret };
 * ```
 */
export interface VerifyProviderBInput {
  /** The request body exactly as received, before any parsing. */
  rawBody: RawBody;
  /** The value of the `X-Signature` header, or null when absent. */
  signature: string | null | undefined;
  /** The integration's webhook secret; null or empty when none is saved yet. */
  secret: WebhookSecret | null | undefined;
}

/**
 * Checks a provider_b signature: the header must be the hex HMAC-SHA256 of the raw body keyed with
 * the secret (either letter case), compared in constant time. provider_b signs no timestamp, so
 * replays are caught by the event de-duplication, not here.
 *
 * @example
 * ```ts
 * import { verifyProviderBSignature } from '@svc-licensing/provider-webhooks';
 *
 * const check = verifyProviderBSignature({
 *   rawBody,
 *   signature: request.headers.get('X-Signature'),
 *   secret: 'my-signing-secret',
 * });
 * if (!check.ok) return new Response(null, { status: 401 });
 * ```
 */
export function verifyProviderBSignature(input: VerifyProviderBInput): SignatureResult {
  const signature = input.signature?.trim();
  if (signature === undefined || signature === '') return { ok: false, reason: 'missing_header' };
  if (!/^[0-9a-fA-F]{64}$/.test(signature)) return { ok: false, reason: 'malformed_header' };
  if (!hasSecret(input.secret)) return { ok: false, reason: 'missing_secret' };
  const expected = hmacSha256(input.secret, [input.rawBody]);
  return hexDigestMatches(expected, signature) ? { ok: true } : { ok: false, reason: 'signature_mismatch' };
}

/**
 * Computes an `X-Signature` header value for a body, as provider_b would send it. Meant for tests
 * and local tools that replay events.
 *
 * @example
 * ```ts
 * import { signProviderB } from '@svc-licensing/provider-webhooks';
 *
 * const body = JSON.stringify(event);
 * await fetch(url, { method: 'POST', body, headers: { 'X-Signature': signProviderB(body, 'my-signing-secret') } });
 * ```
 */
export function signProviderB(rawBody: RawBody, secret: WebhookSecret): string {
  return hmacSha256(secret, [rawBody]).toString('hex');
}
