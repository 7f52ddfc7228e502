import type { EngineContext } from '../_internal/context.js';
import type { EncryptedSecret, WebhookEndpointRecord } from '../_internal/records.js';

/** Signing secrets of webhook endpoints: `whsec_` + base64 of 32 random bytes, stored sealed. */

/** The prefix of a signing secret (Standard Webhooks). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** How long the previous secret keeps signing after a rotation: 24 hours. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** A new signing secret from the engine's random source. */
export function newWebhookSecret(ctx: EngineContext): string {
  return WEBHOOK_SECRET_PREFIX + Buffer.from(ctx.random.bytes(32).slice(0, 32)).toString('base64');
}

/** Seals an endpoint's signing secret for its purpose and endpoint: it opens as nothing else. */
export function sealWebhookSecret(ctx: EngineContext, secret: string, endpointId: string): EncryptedSecret {
  return ctx.secrets.encrypt(new TextEncoder().encode(secret), { purpose: 'notification-secret', record: endpointId });
}

export function openWebhookSecret(ctx: EngineContext, sealed: EncryptedSecret, endpointId: string): string {
  return new TextDecoder().decode(ctx.secrets.decrypt(sealed, { purpose: 'notification-secret', record: endpointId }));
}

/**
 * The secrets that sign an attempt at `now`: the current one first, then the previous one during
 * the overlap; null when one of them does not open (the caller disables the endpoint).
 */
export function signingSecretsOf(ctx: EngineContext, endpoint: WebhookEndpointRecord, now: number): string[] | null {
  const current = openOrNull(ctx, endpoint.secret, endpoint.id);
  const previous = endpoint.previousSecret;
  if (current === null || previous === null || now >= previous.expiresAt) return current === null ? null : [current];
  const old = openOrNull(ctx, previous.secret, endpoint.id);
  return old === null ? null : [current, old];
}

/** Whether the endpoint's current secret opens (a rotation keeps only a readable one signing beside the new). */
export function currentSecretOpens(ctx: EngineContext, endpoint: WebhookEndpointRecord): boolean {
  return openOrNull(ctx, endpoint.secret, endpoint.id) !== null;
}

// The secret box's error (an authentication failure) says nothing more than "does not open"; it is not logged.
function openOrNull(ctx: EngineContext, sealed: EncryptedSecret, endpointId: string): string | null {
  try {
    return openWebhookSecret(ctx, sealed, endpointId);
  } catch {
    return null;
  }
}
