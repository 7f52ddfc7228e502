import type { Actor, AuditData, AuditEventRecord, AuditEventType } from './records.js';
import { AUDIT_EVENT_TYPES } from './audit-records.js';
import type { StoreTx } from './store.js';
import type { EngineContext } from './context.js';
import { now } from './context.js';
import { queueNotifications } from './notify.js';
import type { NotifyContext } from './notify.js';

/**
 * Appends one audit event inside the caller's transaction, and queues its notifications (one per
 * subscribed webhook endpoint) in the same unit. `account`: the account as the unit read it (read
 * here otherwise, only to see whether anything subscribes); `view`: the resource's API view, built
 * only when something does.
 */
export async function audit<T extends AuditEventType>(
  ctx: EngineContext,
  tx: StoreTx,
  event: { accountId: string; type: T; licenseId: string | null; data: AuditData[T]; actor?: Actor | null } & NotifyContext,
): Promise<void> {
  const actor = event.actor ?? null;
  const record: AuditEventRecord = {
    id: ctx.ids.next('evt'),
    accountId: event.accountId,
    type: event.type,
    licenseId: event.licenseId,
    data: { ...event.data },
    createdAt: now(ctx),
    ...(actor === null ? {} : { actor: { kind: actor.kind, email: actor.email, apiKeyId: actor.apiKeyId }, actorKind: actor.kind }),
  };
  // Held for the commit where the store can (an append with a fresh id has no clash to report).
  await tx.insert('auditEvents', record, { defer: true });
  // Security events are listed, never sent to an endpoint.
  if ((AUDIT_EVENT_TYPES as readonly string[]).includes(record.type)) await queueNotifications(ctx, tx, record, event);
}
