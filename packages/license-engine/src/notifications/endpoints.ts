import { LicensingError } from '../_internal/errors.js';
import { AUDIT_EVENT_TYPES } from '../_internal/audit-records.js';
import type { NotificationEventType, WebhookEndpointRecord } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import type { EngineContext } from '../_internal/context.js';
import { now, owned, transact } from '../_internal/context.js';
import { loadAccount } from '../_internal/account.js';
import { asObject, invalid, optionalBoolean, optionalString, requireString } from '../_internal/validate.js';
import { openCursor, sealCursor } from '../_internal/cursor.js';
import type { ListView } from '../_internal/views.js';
import type { WebhookEndpointSecretView, WebhookEndpointView } from '../_internal/notification-views.js';
import { webhookEndpointView } from '../_internal/notification-views.js';
import { SECRET_ROTATION_OVERLAP_MS, currentSecretOpens, newWebhookSecret, sealWebhookSecret } from './secrets.js';
import { unparkDeliveries } from './parking.js';

/** At most this many webhook endpoints per account. */
export const WEBHOOK_ENDPOINTS_PER_ACCOUNT = 10;

/** Longest endpoint URL accepted. */
export const MAX_ENDPOINT_URL_LENGTH = 2048;

/** `POST /webhook-endpoints`. The host checks the URL's safety rules (https, public address) before. */
export interface CreateWebhookEndpointInput {
  url: string;
  description?: string;
  /** Event types; omitted or empty: every type. */
  events?: string[];
  enabled?: boolean;
}

/** `PATCH /webhook-endpoints/{id}`: the fields given change; `enabled: true` re-enables one the server disabled. */
export type UpdateWebhookEndpointInput = Partial<CreateWebhookEndpointInput>;

function parseUrl(value: unknown): string {
  const text = requireString(value, 'url', MAX_ENDPOINT_URL_LENGTH);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    invalid('url must be an absolute https URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') invalid('url must be an https URL');
  return text;
}

function parseEvents(value: unknown): NotificationEventType[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > AUDIT_EVENT_TYPES.length) invalid(`events must be a list of event types (${AUDIT_EVENT_TYPES.join(', ')})`);
  const known = new Set<string>(AUDIT_EVENT_TYPES);
  for (const type of value) if (typeof type !== 'string' || !known.has(type)) invalid(`events: ${JSON.stringify(type)} is not an event type (${AUDIT_EVENT_TYPES.join(', ')})`);
  return [...new Set(value as NotificationEventType[])];
}

const parseDescription = (value: unknown): string => optionalString(value, 'description', 500) ?? '';

/**
 * Writes the account's `webhookSubscriptions` from its endpoints (the enabled ones), under the
 * account's lock: every unit that changes an endpoint's URL-independent fields calls it, so the
 * audit hook's view from the account stays exact.
 */
export async function syncSubscriptions(ctx: EngineContext, tx: StoreTx, accountId: string): Promise<void> {
  const account = await loadAccount(tx, accountId, true);
  const endpoints = await tx.findMany('webhookEndpoints', { accountId });
  const webhookSubscriptions = endpoints.filter((e) => e.enabled).map((e) => ({ endpoint: e.id, events: [...e.events] }));
  await tx.update('accounts', { ...account, webhookSubscriptions, updatedAt: now(ctx) });
}

export async function listWebhookEndpoints(ctx: EngineContext, accountId: string, options: { cursor?: string | null } = {}): Promise<ListView<WebhookEndpointView>> {
  const scope = ['webhookEndpoints', accountId] as const;
  const cursor = openCursor(ctx, scope, options.cursor);
  return transact(ctx, async (tx) => {
    const page = await tx.page('webhookEndpoints', { where: { accountId }, cursor, limit: 50, order: 'desc' });
    const at = ctx.clock.now();
    return { data: page.data.map((e) => webhookEndpointView(e, at)), nextCursor: sealCursor(ctx, scope, page.nextCursor) };
  }, { readOnly: true });
}

export async function getWebhookEndpoint(ctx: EngineContext, accountId: string, id: string): Promise<WebhookEndpointView> {
  return transact(ctx, async (tx) => webhookEndpointView(await owned(tx, 'webhookEndpoints', accountId, id, 'webhook endpoint'), ctx.clock.now()), { readOnly: true });
}

/** `POST /webhook-endpoints` (owner): at most `WEBHOOK_ENDPOINTS_PER_ACCOUNT` (`conflict` beyond); the secret is in this answer only. */
export async function createWebhookEndpoint(ctx: EngineContext, accountId: string, input: CreateWebhookEndpointInput): Promise<WebhookEndpointSecretView> {
  const body = asObject(input);
  const url = parseUrl(body.url);
  const description = parseDescription(body.description);
  const events = parseEvents(body.events);
  const enabled = optionalBoolean(body.enabled, 'enabled') ?? true;
  const secret = newWebhookSecret(ctx);
  const id = ctx.ids.next('wep');
  const sealed = sealWebhookSecret(ctx, secret, id);
  return transact(ctx, async (tx) => {
    await loadAccount(tx, accountId, true); // endpoints of one account are created one at a time: the limit holds
    if ((await tx.count('webhookEndpoints', { accountId })) >= WEBHOOK_ENDPOINTS_PER_ACCOUNT) {
      throw new LicensingError('conflict', `an account has at most ${WEBHOOK_ENDPOINTS_PER_ACCOUNT} webhook endpoints; delete one first`);
    }
    const at = now(ctx);
    const record: WebhookEndpointRecord = {
      id, accountId, url, description, events, enabled, disabledReason: null, secret: sealed, previousSecret: null, lastSuccessAt: null,
      createdAt: at, updatedAt: at,
    };
    await tx.insert('webhookEndpoints', record);
    await syncSubscriptions(ctx, tx, accountId);
    return { ...webhookEndpointView(record, ctx.clock.now()), secret };
  });
}

/** `PATCH /webhook-endpoints/{id}` (owner). Enabling an endpoint sends its held deliveries (a fresh retry window). */
export async function updateWebhookEndpoint(ctx: EngineContext, accountId: string, id: string, patch: UpdateWebhookEndpointInput): Promise<WebhookEndpointView> {
  const body = asObject(patch);
  const changes: Partial<WebhookEndpointRecord> = {};
  if (body.url !== undefined) changes.url = parseUrl(body.url);
  if (body.description !== undefined) changes.description = parseDescription(body.description);
  if (body.events !== undefined) changes.events = parseEvents(body.events);
  const enabled = optionalBoolean(body.enabled, 'enabled');
  return transact(ctx, async (tx) => {
    await loadAccount(tx, accountId, true);
    const current = await owned(tx, 'webhookEndpoints', accountId, id, 'webhook endpoint', true);
    const next: WebhookEndpointRecord = { ...current, ...changes, updatedAt: now(ctx) };
    if (enabled !== undefined && enabled !== current.enabled) {
      next.enabled = enabled;
      next.disabledReason = null;
      if (enabled) await unparkDeliveries(ctx, tx, id);
    }
    await tx.update('webhookEndpoints', next);
    await syncSubscriptions(ctx, tx, accountId);
    return webhookEndpointView(next, ctx.clock.now());
  });
}

/** `DELETE /webhook-endpoints/{id}` (owner): nothing more is queued for it; deliveries queued are dropped when due. */
export async function deleteWebhookEndpoint(ctx: EngineContext, accountId: string, id: string): Promise<WebhookEndpointView> {
  return transact(ctx, async (tx) => {
    await loadAccount(tx, accountId, true);
    const current = await owned(tx, 'webhookEndpoints', accountId, id, 'webhook endpoint', true);
    await tx.delete('webhookEndpoints', id);
    await syncSubscriptions(ctx, tx, accountId);
    return webhookEndpointView(current, ctx.clock.now());
  });
}

/**
 * `POST /webhook-endpoints/{id}/rotate-secret` (owner): a new secret; the old one signs beside it for
 * 24 hours, unless it does not open (`secret_unreadable`): then the new one signs alone.
 */
export async function rotateWebhookEndpointSecret(ctx: EngineContext, accountId: string, id: string): Promise<WebhookEndpointSecretView> {
  const secret = newWebhookSecret(ctx);
  return transact(ctx, async (tx) => {
    const current = await owned(tx, 'webhookEndpoints', accountId, id, 'webhook endpoint', true);
    const at = ctx.clock.now();
    const next: WebhookEndpointRecord = {
      ...current,
      secret: sealWebhookSecret(ctx, secret, id),
      previousSecret: currentSecretOpens(ctx, current) ? { secret: current.secret, expiresAt: at + SECRET_ROTATION_OVERLAP_MS } : null,
      updatedAt: now(ctx),
    };
    await tx.update('webhookEndpoints', next);
    return { ...webhookEndpointView(next, at), secret };
  });
}
