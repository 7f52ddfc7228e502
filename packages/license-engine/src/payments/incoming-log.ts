import type { IncomingDeliveryRecord, IncomingDeliveryResult, IncomingRefusalReason, IntegrationRecord } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import type { EngineContext } from '../_internal/context.js';
import { owned, transact } from '../_internal/context.js';
import { lockOrInsert } from '../_internal/claim.js';
import { openCursor, sealCursor } from '../_internal/cursor.js';
import { together } from '../_internal/together.js';
import { timestampMs } from '../_internal/time.js';
import { asObject, invalid, optionalString, requireInt, requireString } from '../_internal/validate.js';
import type { ListView } from '../_internal/views.js';
import { incomingDeliveryView, incomingRow, withRepeats, type IncomingDeliveryEntry, type IncomingDeliveryView } from '../_internal/incoming.js';

/** The log of incoming provider deliveries (issue 28): recording groups, listing them, the 30-day purge. */

/** Rows of the incoming delivery log are kept this many days after their minute. */
export const INCOMING_DELIVERY_RETENTION_DAYS = 30;

const RESULTS: readonly IncomingDeliveryResult[] = ['processed', 'duplicate', 'ignored', 'refused'];
const REASONS: readonly IncomingRefusalReason[] = [
  'missing_secret', 'missing_header', 'malformed_header', 'timestamp_out_of_range', 'signature_mismatch', 'body_too_large', 'unreadable_body',
  'key_email_in_progress', 'conflict', 'rate_limited', 'customer_unknown', 'error',
];
const PURGE_BATCH = 500;

function checkEntry(value: unknown, i: number): IncomingDeliveryEntry {
  const e = asObject(value, `entries[${i}]`);
  const result = e.result as IncomingDeliveryResult;
  if (!RESULTS.includes(result)) invalid(`entries[${i}].result must be one of ${RESULTS.join(', ')}`);
  const reason = e.reason === undefined || e.reason === null ? null : (e.reason as IncomingRefusalReason);
  if (reason !== null && !REASONS.includes(reason)) invalid(`entries[${i}].reason must be one of ${REASONS.join(', ')}`);
  if (e.at !== undefined && (typeof e.at !== 'number' || !Number.isFinite(e.at))) invalid(`entries[${i}].at must be epoch milliseconds`);
  return {
    integrationId: requireString(e.integrationId, `entries[${i}].integrationId`, 100),
    status: requireInt(e.status, `entries[${i}].status`, 100, 599),
    result,
    reason,
    message: optionalString(e.message, `entries[${i}].message`, 100_000) ?? '',
    eventType: optionalString(e.eventType, `entries[${i}].eventType`, 200),
    eventId: optionalString(e.eventId, `entries[${i}].eventId`, 200),
    ...(e.at === undefined ? {} : { at: e.at as number }),
    count: e.count === undefined ? 1 : requireInt(e.count, `entries[${i}].count`, 1, 1_000_000_000),
  };
}

/** Adds `row` to its group: a new row, or the group's count raised (the row locked by its unique key). */
export async function addToGroup(tx: StoreTx, row: IncomingDeliveryRecord): Promise<void> {
  const existing = await lockOrInsert(
    (lock) => tx.findOne('incomingDeliveries', { groupKey: row.groupKey }, lock),
    () => tx.insert('incomingDeliveries', row),
  );
  if (existing) await tx.update('incomingDeliveries', withRepeats(existing, row), { defer: true });
}

/**
 * Logs incoming deliveries in one unit of work: each entry joins the row of its group (its
 * integration, minute, result, reason and, for a verified delivery, event ID), whose `count` it
 * raises, or starts one. Entries of an integration that does not exist (deleted meanwhile) are
 * dropped: deliveries to unknown integrations belong to no account. The host calls it for
 * deliveries answered outside the event's own unit (refusals, duplicates); a processed or ignored
 * event is logged by `applyPaymentCommand` in its unit.
 *
 * @example
 * ```ts
 * await engine.recordIncomingDeliveries([
 *   { integrationId, status: 401, result: 'refused', reason: 'signature_mismatch', message: 'The signature does not match ...' },
 * ]);
 * ```
 */
export async function recordIncomingDeliveries(ctx: EngineContext, entries: readonly IncomingDeliveryEntry[]): Promise<void> {
  if (!Array.isArray(entries)) invalid('entries must be a list');
  const checked = entries.map(checkEntry);
  if (checked.length === 0) return;
  await transact(ctx, async (tx) => {
    const ids = [...new Set(checked.map((e) => e.integrationId))];
    const found = await together(ids.map((id) => tx.get('integrations', id)));
    const integrations = new Map(found.filter((i): i is IntegrationRecord => i !== null).map((i) => [i.id, i]));
    const rows = new Map<string, IncomingDeliveryRecord>();
    for (const entry of checked) {
      const integration = integrations.get(entry.integrationId);
      if (!integration) continue;
      const row = incomingRow(ctx, integration, entry);
      const same = rows.get(row.groupKey);
      rows.set(row.groupKey, same ? withRepeats(same, row) : row);
    }
    await together([...rows.values()].map((row) => addToGroup(tx, row)));
  });
}

/** `GET /integrations/{id}/deliveries`: the integration's incoming deliveries, newest group first, 50 a page. */
export async function listIncomingDeliveries(
  ctx: EngineContext,
  accountId: string,
  integrationId: string,
  options: { cursor?: string | null } = {},
): Promise<ListView<IncomingDeliveryView>> {
  const scope = ['incomingDeliveries', accountId, integrationId] as const;
  const cursor = openCursor(ctx, scope, options.cursor);
  return transact(ctx, async (tx) => {
    await owned(tx, 'integrations', accountId, integrationId, 'integration');
    const page = await tx.page('incomingDeliveries', { where: { integrationId }, cursor, limit: 50, order: 'desc' });
    return { data: page.data.map(incomingDeliveryView), nextCursor: sealCursor(ctx, scope, page.nextCursor) };
  }, { readOnly: true });
}

/**
 * Deletes the rows of the incoming delivery log whose last delivery is more than
 * `INCOMING_DELIVERY_RETENTION_DAYS` old (oldest first, in batches); returns how many.
 */
export async function purgeOldIncomingDeliveries(ctx: EngineContext): Promise<{ deleted: number }> {
  const cutoff = ctx.clock.now() - INCOMING_DELIVERY_RETENTION_DAYS * 86_400_000;
  let deleted = 0;
  for (;;) {
    const batch = await transact(ctx, async (tx) => {
      const page = await tx.page('incomingDeliveries', { limit: PURGE_BATCH, order: 'asc' });
      const old = page.data.filter((r) => timestampMs(r.lastAt) < cutoff);
      for (const r of old) await tx.delete('incomingDeliveries', r.id, { defer: true });
      return { old: old.length, full: old.length === page.data.length && page.data.length === PURGE_BATCH };
    });
    deleted += batch.old;
    if (!batch.full) return { deleted };
  }
}
