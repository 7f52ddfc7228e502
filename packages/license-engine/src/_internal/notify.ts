import type { AccountRecord, AuditEventRecord, NotificationDeliveryRecord } from './records.js';
import type { StoreTx } from './store.js';
import type { EngineContext } from './context.js';
import { auditEventViewSharingData } from './record-views.js';

/**
 * The transactional outbox's write side: an audited change queues one notification delivery per
 * enabled endpoint of its account that subscribes to the event's type, in the change's own unit of
 * work, so a committed change always notifies and a rolled-back one never does. Whether anything
 * subscribes is read from the account's `webhookSubscriptions` (the account record most units
 * have read already): a unit of an account without endpoints writes nothing more.
 */

/** What an audited change tells the hook besides the event: its account if the unit has it, and the resource's API view. */
export interface NotifyContext {
  /** The account as this unit read it; read here when absent. */
  account?: AccountRecord | null;
  /**
   * The view of the resource the event is about, as the vendor API returns it; built only when an
   * endpoint subscribes. A new object on each call, which the body's `event` is added to.
   */
  view?: () => unknown;
}

/** The last instant `isoTime` formatted, and its text: the units of one millisecond share it. */
let lastAt = Number.NaN;
let lastIso = '';

/** `new Date(at).toISOString()`, formatted once per millisecond. */
function isoTime(at: number): string {
  if (at !== lastAt) {
    lastIso = new Date(at).toISOString();
    lastAt = at;
  }
  return lastIso;
}

/** The body of a notification: `{ type, timestamp, data }` (Standard Webhooks' recommended shape). */
export function notificationBody(type: string, at: number, data: unknown): string {
  return JSON.stringify({ type, timestamp: isoTime(at), data });
}

/** How a queued delivery is inserted: held for the commit, and kept by the store without a copy. */
const QUEUED = { defer: true, owned: true } as const;

/** A new delivery, due at once. */
export function newDelivery(
  ctx: EngineContext,
  input: { accountId: string; endpointId: string; eventId: string | null; type: string; body: string; createdAt: string },
): NotificationDeliveryRecord {
  const at = ctx.clock.now();
  // Fields named one by one (no spread of `input`): this runs once per queued notification.
  return {
    id: ctx.ids.next('msg'),
    accountId: input.accountId,
    endpointId: input.endpointId,
    eventId: input.eventId,
    type: input.type,
    body: input.body,
    createdAt: input.createdAt,
    state: 'pending',
    dueAt: at,
    nextAttemptAt: at,
    roundAttempts: 0,
    firstAttemptAt: null,
    attempts: [],
    claim: null,
    updatedAt: input.createdAt,
  };
}

/** Marks `tx` as having queued deliveries: once it commits, the engine tells the host (a dispatcher wakes up). */
export function markQueued(ctx: EngineContext, tx: StoreTx): void {
  ctx.queuedIn.add(tx);
}

/** Queues the notifications of `event` (already inserted in `tx`) for every endpoint that subscribes to its type. */
export async function queueNotifications(ctx: EngineContext, tx: StoreTx, event: AuditEventRecord, context: NotifyContext): Promise<void> {
  const account = context.account === undefined ? await tx.get('accounts', event.accountId) : context.account;
  const subscriptions = account?.webhookSubscriptions;
  if (!subscriptions || subscriptions.length === 0) return;
  let subscribed: typeof subscriptions | null = null;
  for (const s of subscriptions) if (s.events.length === 0 || (s.events as readonly string[]).includes(event.type)) (subscribed ??= []).push(s);
  if (subscribed === null) return;
  // A view built at once (every view but an async one) is used without a turn of the event loop.
  const made = context.view ? context.view() : {};
  const resource = made instanceof Promise ? ((await made) as unknown) : made;
  // Encoded at once and not kept: the event's data needs no copy. One body for every endpoint.
  // The view is the hook's own (a new object), so `event` goes into it instead of into a spread
  // copy; the same keys in the same order. Anything else (not a plain object, a frozen one, one
  // with an `event` of its own) is copied as before.
  const eventView = auditEventViewSharingData(event);
  let data: object;
  if (typeof resource === 'object' && resource !== null && Object.getPrototypeOf(resource) === Object.prototype && Object.isExtensible(resource) && !Object.hasOwn(resource, 'event')) {
    (resource as Record<string, unknown>)['event'] = eventView;
    data = resource;
  } else data = { ...(resource as object), event: eventView };
  const body = notificationBody(event.type, ctx.clock.now(), data);
  for (const s of subscribed) {
    const delivery = newDelivery(ctx, { accountId: event.accountId, endpointId: s.endpoint, eventId: event.id, type: event.type, body, createdAt: event.createdAt });
    // Held for the commit where the store can: a fresh id has no clash to report. Built here and
    // dropped: the store may keep it without a copy.
    await tx.insert('notificationDeliveries', delivery, QUEUED);
  }
  markQueued(ctx, tx);
}
