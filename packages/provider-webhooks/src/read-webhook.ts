import type { ProviderName } from '@svc-licensing/license-engine';
import type { WebhookParseError } from './_internal/errors.js';
import { readHeader } from './_internal/headers.js';
import { parseProviderAEvent } from './provider-a-events.js';
import { PROVIDER_A_SIGNATURE_HEADER, verifyProviderASignature } from './provider-a-signature.js';
import { parseProviderBEvent } from './provider-b-events.js';
import { PROVIDER_B_SIGNATURE_HEADER, verifyProviderBSignature } from './provider-b-signature.js';
import type { PaymentCommand } from '@svc-licensing/license-engine';
import type { HeadersInput, RawBody, SignatureFailureReason, WebhookSecret } from './_internal/types.js';

/**
 * Input of {@link readWebhook}.
 *
 * @example
 * ```ts
 * const input: ReadWebhookInput = { rawBody, headers: request.headers, secret, now: clock.now() };
 * ```
 */
export interface ReadWebhookInput {
  /** The request body exactly as received. */
  rawBody: RawBody;
  /** The request headers (a plain object or a Fetch `Headers`). */
  headers: HeadersInput;
  /** The integration's webhook secret; null when none is saved yet (the result is then `unauthorized`). */
  secret: WebhookSecret | null | undefined;
  /** The current time for provider_a's timestamp check (Date or epoch milliseconds); defaults to the system clock. */
  now?: Date | number;
  /** provider_a only: allowed distance of `ts` from now, in seconds (default 300). */
  toleranceSeconds?: number;
}

/**
 * What a webhook request amounts to: `unauthorized` (answer 401, process nothing), `invalid` (a
 * verified body that cannot be read: answer it as a processing error, change nothing) or `ok` with
 * the command for the engine.
 *
 * @example
 * ```ts
 * const result: ReadWebhookResult = readWebhook('provider_a', input);
 * const status = result.status === 'unauthorized' ? 401 : result.status === 'invalid' ? 500 : 200;
 * ```
 */
export type ReadWebhookResult =
  | { status: 'unauthorized'; reason: SignatureFailureReason }
  | { status: 'invalid'; error: WebhookParseError }
  | { status: 'ok'; command: PaymentCommand };

/**
 * Verifies a webhook request's signature and, only when it is valid, parses its body: the one call a
 * receiver needs. Framework-independent: give it the raw body, the headers, the secret and the time.
 *
 * @example
 * ```ts
 * import { readWebhook } from '@svc-licensing/provider-webhooks';
 *
 * const rawBody = new Uint8Array(await request.arrayBuffer());
 * const result = readWebhook('provider_a', { rawBody, headers: request.headers, secret, now: Date.now() });
 * if (result.status === 'unauthorized') return new Response(null, { status: 401 });
 * if (result.status === 'invalid') return new Response(null, { status: 500 }); // provider retries
 * await engine.applyPaymentCommand(integrationId, result.command);
 * ```
 */
export function readWebhook(provider: ProviderName, input: ReadWebhookInput): ReadWebhookResult {
  const check =
    provider === 'provider_a'
      ? verifyProviderASignature({
          rawBody: input.rawBody,
          header: readHeader(input.headers, PROVIDER_A_SIGNATURE_HEADER),
          secret: input.secret,
          ...(input.now === undefined ? {} : { now: input.now }),
          ...(input.toleranceSeconds === undefined ? {} : { toleranceSeconds: input.toleranceSeconds }),
        })
      : provider === 'provider_b'
        ? verifyProviderBSignature({
            rawBody: input.rawBody,
            signature: readHeader(input.headers, PROVIDER_B_SIGNATURE_HEADER),
            secret: input.secret,
          })
        : null;
  if (check === null) throw new TypeError(`unknown provider ${String(provider)}`);
  if (!check.ok) return { status: 'unauthorized', reason: check.reason };
  const parsed = provider === 'provider_a' ? parseProviderAEvent(input.rawBody) : parseProviderBEvent(input.rawBody);
  return parsed.ok ? { status: 'ok', command: parsed.command } : { status: 'invalid', error: parsed.error };
}
