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

/** The secrets that sign an attempt at `now`: the current one first, then the previous one during the overlap. */
export function signingSecretsOf(ctx: EngineContext, endpoint: WebhookEndpointRecord, now: number): string[] {
  const current = openWebhookSecret(ctx, endpoint.secret, endpoint.id);
  const previous = endpoint.previousSecret;
  return previous !== null && now < previous.expiresAt ? [current, openWebhookSecret(ctx, previous.secret, endpoint.id)] : [current];
}
