import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RawBody, WebhookSecret } from './types.js';

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/** HMAC-SHA256 over the concatenation of `parts`, keyed with `secret`. */
export function hmacSha256(secret: WebhookSecret, parts: readonly RawBody[]): Buffer {
  const hmac = createHmac('sha256', secret);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
}

/**
 * Constant-time check of a hex signature against the expected 32-byte digest. A value that is not
 * 64 hex digits cannot match; its shape is public, so rejecting it early leaks nothing.
 */
export function hexDigestMatches(expected: Buffer, candidateHex: string): boolean {
  if (!HEX_SHA256.test(candidateHex)) return false;
  const candidate = Buffer.from(candidateHex, 'hex');
  return candidate.length === expected.length && timingSafeEqual(candidate, expected);
}

/** True when a secret was given and is not empty. */
export function hasSecret(secret: WebhookSecret | null | undefined): secret is WebhookSecret {
  return secret !== null && secret !== undefined && secret.length > 0;
}
