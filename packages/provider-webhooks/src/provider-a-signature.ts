import { hasSecret, hexDigestMatches, hmacSha256 } from './_internal/hmac.js';
import type { RawBody, SignatureResult, WebhookSecret } from './_internal/types.js';

/**
 * Name of provider_a's signature header.
 *
 * @example
 * ```ts
 * const header = request.headers.get(PROVIDER_A_SIGNATURE_HEADER); // 'ts=1718000000;h1=…'
 * ```
 */
export const PROVIDER_A_SIGNATURE_HEADER = 'Provider-A-Signature';

/**
 * How far `ts` may be from now, in either direction, by default: 300 seconds (5 minutes, inclusive).
 *
 * @example
 * ```ts
 * verifyProviderASignature({ rawBody, header, secret, toleranceSeconds: PROVIDER_A_TOLERANCE_SECONDS });
 * ```
 */
export const PROVIDER_A_TOLERANCE_SECONDS = 300;

/**
 * Input of {@link verifyProviderASignature}.
 *
 * @example
 * ```ts
 * const input: VerifyProviderAInput = { rawBody, header, secret, now: Date.now() };
 * ```
 */
export interface VerifyProviderAInput {
  /** The request body exactly as received, before any parsing. */
  rawBody: RawBody;
  /** The value of the `Provider-A-Signature` header, or null when absent. */
  header: string | null | undefined;
  /** The integration's webhook secret; null or empty when none is saved yet. */
  secret: WebhookSecret | null | undefined;
  /** The current time (a Date or milliseconds since the epoch); defaults to the system clock. */
  now?: Date | number;
  /** Allowed distance between `ts` and now; defaults to {@link PROVIDER_A_TOLERANCE_SECONDS}. */
  toleranceSeconds?: number;
}

const TS = /^\d{1,12}$/;

/** `ts` and every `h1` of a header like `ts=1700000000;h1=<hex>;h1=<hex>`, or null when malformed. */
function parseHeader(header: string): { ts: string; h1: string[] } | null {
  let ts: string | null = null;
  const h1: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (value === '') return null;
    if (key === 'ts') {
      if (ts !== null || !TS.test(value)) return null;
      ts = value;
    } else if (key === 'h1') {
      h1.push(value);
    }
    // Other keys are left for future signature schemes, as the provider documents.
  }
  return ts === null || h1.length === 0 ? null : { ts, h1 };
}

/**
 * Checks a provider_a signature: `h1` must equal the hex HMAC-SHA256 of `<ts>:<raw body>` keyed with
 * the secret, and `ts` must lie within the tolerance of now. Several `h1` values may be present (during
 * a secret rotation); any match passes. Digests are compared in constant time. Call it on the raw
 * bytes before parsing anything.
 *
 * @example
 * ```ts
 * import { verifyProviderASignature } from '@svc-licensing/provider-webhooks';
 *
 * const check = verifyProviderASignature({
 *   rawBody,                                           // string or Uint8Array, untouched
 *   header: request.headers.get('Provider-A-Signature'),
 *   secret: 'pdl_ntfset_...',
 * });
 * if (!check.ok) return new Response(null, { status: 401 }); // check.reason says why
 * ```
 */
export function verifyProviderASignature(input: VerifyProviderAInput): SignatureResult {
  const header = input.header?.trim();
  if (header === undefined || header === '') return { ok: false, reason: 'missing_header' };
  const parsed = parseHeader(header);
  if (parsed === null) return { ok: false, reason: 'malformed_header' };
  if (!hasSecret(input.secret)) return { ok: false, reason: 'missing_secret' };

  const nowMs = input.now === undefined ? Date.now() : typeof input.now === 'number' ? input.now : input.now.getTime();
  const tolerance = input.toleranceSeconds ?? PROVIDER_A_TOLERANCE_SECONDS;
  if (Math.abs(nowMs / 1000 - Number(parsed.ts)) > tolerance) return { ok: false, reason: 'timestamp_out_of_range' };

  const expected = hmacSha256(input.secret, [`${parsed.ts}:`, input.rawBody]);
  let matched = false;
  for (const candidate of parsed.h1) matched = hexDigestMatches(expected, candidate) || matched;
  return matched ? { ok: true } : { ok: false, reason: 'signature_mismatch' };
}

/**
 * Computes a `Provider-A-Signature` header value for a body, as provider_a would send it. Meant for
 * tests and local tools that replay events.
 *
 * @param ts - Unix time in seconds (defaults to now).
 * @example
 * ```ts
 * import { signProviderA } from '@svc-licensing/provider-webhooks';
 *
 * const body = JSON.stringify(event);
 * const header = signProviderA(body, 'whsec_test', Math.floor(Date.now() / 1000));
 * // 'ts=1718000000;h1=5f0c…'
 * ```
 */
export function signProviderA(rawBody: RawBody, secret: WebhookSecret, ts: number = Math.floor(Date.now() / 1000)): string {
  if (!Number.isSafeInteger(ts) || ts < 0) throw new RangeError(`expected ts as non-negative unix seconds, got ${ts}`);
  return `ts=${ts};h1=${hmacSha256(secret, [`${ts}:`, rawBody]).toString('hex')}`;
}
