import type { H3Event } from 'h3';
import type { LicenseEngine } from '@svc-licensing/license-engine';
import { ApiError } from './errors.js';

const BEARER = /^Bearer (svc_sk_[A-Za-z0-9_-]{32})$/;

/**
 * Authenticates a vendor API request from `Authorization: Bearer svc_sk_<32 chars>`.
 * A missing, malformed, unknown or revoked key, or a closed account, is `401 unauthorized`.
 *
 * @example
 * const { accountId } = await authenticate(event, engine);
 */
export async function authenticate(event: H3Event, engine: LicenseEngine): Promise<{ accountId: string; apiKeyId: string }> {
  const header = event.req.headers.get('authorization');
  const match = header === null ? null : BEARER.exec(header.trim());
  if (match === null) throw new ApiError('unauthorized', 'Missing or invalid API key.');
  const principal = await engine.authenticate(match[1]!);
  if (principal === null) throw new ApiError('unauthorized', 'Missing or invalid API key.');
  return principal;
}
