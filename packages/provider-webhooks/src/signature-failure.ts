import type { ProviderName } from '@svc-licensing/license-engine';
import { PROVIDER_A_SIGNATURE_HEADER, PROVIDER_A_TOLERANCE_SECONDS } from './provider-a-signature.js';
import { PROVIDER_B_SIGNATURE_HEADER } from './provider-b-signature.js';
import type { SignatureFailureReason } from './_internal/types.js';

/**
 * A sentence for the vendor saying which signature check failed and what to look at, for a `401`
 * answer's message and the server log. It names headers and limits, never a secret or a digest.
 *
 * @param toleranceSeconds - provider_a's window, when the receiver uses another than the default 300.
 * @example
 * ```ts
 * import { describeSignatureFailure, readWebhook } from '@svc-licensing/provider-webhooks';
 *
 * const result = readWebhook('provider_b', { rawBody, headers, secret });
 * if (result.status === 'unauthorized') {
 *   return Response.json({ error: { code: 'unauthorized', message: describeSignatureFailure('provider_b', result.reason) } }, { status: 401 });
 * }
 * ```
 */
export function describeSignatureFailure(provider: ProviderName, reason: SignatureFailureReason, toleranceSeconds = PROVIDER_A_TOLERANCE_SECONDS): string {
  const header = provider === 'provider_a' ? PROVIDER_A_SIGNATURE_HEADER : PROVIDER_B_SIGNATURE_HEADER;
  switch (reason) {
    case 'missing_secret':
      return "No webhook secret is saved for this integration yet: save the provider's signing secret on the integration.";
    case 'missing_header':
      return `The ${header} header is missing: the request was not signed by ${provider}, or a proxy removed the header.`;
    case 'malformed_header':
      return provider === 'provider_a'
        ? `The ${header} header is malformed: expected ts=<unix seconds>;h1=<hex HMAC-SHA256>.`
        : `The ${header} header is malformed: expected the hex HMAC-SHA256 of the body (64 hexadecimal digits).`;
    case 'timestamp_out_of_range':
      return `The signature's timestamp (ts) is more than ${toleranceSeconds} seconds away from the server's clock: check the server's time, or the delivery is an old one replayed.`;
    case 'signature_mismatch':
      return `The ${header} signature does not match the body with the saved webhook secret: save the secret of the notification destination that sends here (sandbox and live have different ones), and forward the body unchanged.`;
  }
}
