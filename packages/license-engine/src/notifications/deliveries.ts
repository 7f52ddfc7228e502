import { LicensingError } from '../_internal/errors.js';
import type { EngineContext } from '../_internal/context.js';
import { now, owned, transact } from '../_internal/context.js';
import { openCursor, sealCursor } from '../_internal/cursor.js';
import type { ListView } from '../_internal/views.js';
import type { NotificationDeliveryView } from '../_internal/notification-views.js';
import { notificationDeliveryView, webhookEndpointView } from '../_internal/notification-views.js';
import { markQueued, newDelivery, notificationBody } from '../_internal/notify.js';
import { timestampMs } from '../_internal/time.js';

/** The delivery log of an endpoint, a manual resend, the test notification, and the 30-day purge. */

/** Deliveries are kept this many days after they were queued. */
export const DELIVERY_RETENTION_DAYS = 30;

/** The type of the notification `POST /webhook-endpoints/{id}/test` sends. */
export const TEST_NOTIFICATION_TYPE = 'webhook_endpoint.test';

const PURGE_BATCH = 500;

/** `GET /webhook-endpoints/{id}/deliveries`: newest first, each with its attempts. */
export async function listDeliveries(
  ctx: EngineContext,
  accountId: string,
  endpointId: string,
  options: { cursor?: string | null } = {},
): Promise<ListView<NotificationDeliveryView>> {
  const scope = ['notificationDeliveries', accountId, endpointId] as const;
  const cursor = openCursor(ctx, scope, options.cursor);
  return transact(ctx, async (tx) => {
    await owned(tx, 'webhookEndpoints', accountId, endpointId, 'webhook endpoint');
    const page = await tx.page('notificationDeliveries', { where: { endpointId }, cursor, limit: 50, order: 'desc' });
    return { data: page.data.map(notificationDeliveryView), nextCursor: sealCursor(ctx, scope, page.nextCursor) };
  }, { readOnly: true });
}

/**
 * `POST /webhook-endpoints/{id}/deliveries/{deliveryId}/resend` (owner): sends the delivery again
 * now with the same `webhook-id` and body, with a fresh retry window; `conflict` while the endpoint
 * is disabled.
 */
export async function resendDelivery(ctx: EngineContext, accountId: string, endpointId: string, deliveryId: string): Promise<NotificationDeliveryView> {
  return transact(ctx, async (tx) => {
    const endpoint = await owned(tx, 'webhookEndpoints', accountId, endpointId, 'webhook endpoint');
    const delivery = await owned(tx, 'notificationDeliveries', accountId, deliveryId, 'delivery', true);
    if (delivery.endpointId !== endpointId) throw new LicensingError('not_found', `delivery ${deliveryId} not found`);
    if (!endpoint.enabled) throw new LicensingError('conflict', 'the endpoint is disabled; enable it first');
    const at = ctx.clock.now();
    const next = { ...delivery, state: 'pending' as const, dueAt: at, nextAttemptAt: at, roundAttempts: 0, firstAttemptAt: null, claim: null, updatedAt: now(ctx) };
    await tx.update('notificationDeliveries', next);
    markQueued(ctx, tx);
    return notificationDeliveryView(next);
  });
}

/** `POST /webhook-endpoints/{id}/test` (owner): queues a `webhook_endpoint.test` notification to this endpoint only. */
export async function sendTestNotification(ctx: EngineContext, accountId: string, endpointId: string): Promise<NotificationDeliveryView> {
  return transact(ctx, async (tx) => {
    const endpoint = await owned(tx, 'webhookEndpoints', accountId, endpointId, 'webhook endpoint');
    if (!endpoint.enabled) throw new LicensingError('conflict', 'the endpoint is disabled; enable it first');
    const at = ctx.clock.now();
    const createdAt = now(ctx);
    const event = { id: ctx.ids.next('evt'), type: TEST_NOTIFICATION_TYPE, license: null, data: {}, createdAt };
    const body = notificationBody(TEST_NOTIFICATION_TYPE, at, { ...webhookEndpointView(endpoint, at), event });
    const delivery = newDelivery(ctx, { accountId, endpointId, eventId: null, type: TEST_NOTIFICATION_TYPE, body, createdAt });
    await tx.insert('notificationDeliveries', delivery);
    markQueued(ctx, tx);
    return notificationDeliveryView(delivery);
  });
}

/**
 * Deletes the deliveries queued more than `DELIVERY_RETENTION_DAYS` ago (oldest first, in batches:
 * ids sort by creation), whatever their state; returns how many.
 */
export async function purgeOldDeliveries(ctx: EngineContext): Promise<{ deleted: number }> {
  const cutoff = ctx.clock.now() - DELIVERY_RETENTION_DAYS * 86_400_000;
  let deleted = 0;
  for (;;) {
    const batch = await transact(ctx, async (tx) => {
      const page = await tx.page('notificationDeliveries', { limit: PURGE_BATCH, order: 'asc' });
      const old = page.data.filter((d) => timestampMs(d.createdAt) < cutoff);
      for (const d of old) await tx.delete('notificationDeliveries', d.id, { defer: true });
      return { old: old.length, full: old.length === page.data.length && page.data.length === PURGE_BATCH };
    });
    deleted += batch.old;
    if (!batch.full) return { deleted };
  }
}

/** What the host needs to tell the owner that an endpoint was disabled; null when it is gone. */
export async function disabledEndpointNotice(
  ctx: EngineContext,
  endpointId: string,
): Promise<{ accountId: string; accountName: string; ownerEmail: string; endpoint: ReturnType<typeof webhookEndpointView> } | null> {
  return transact(ctx, async (tx) => {
    const endpoint = await tx.get('webhookEndpoints', endpointId);
    const account = endpoint ? await tx.get('accounts', endpoint.accountId) : null;
    if (!endpoint || !account) return null;
    return { accountId: account.id, accountName: account.name, ownerEmail: account.ownerEmail, endpoint: webhookEndpointView(endpoint, ctx.clock.now()) };
  }, { readOnly: true });
}
