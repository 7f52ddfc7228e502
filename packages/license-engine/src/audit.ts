import type { AuditEventType } from './records.js';
import type { StoreTx } from './store.js';
import { LicensingError } from './errors.js';
import type { EngineContext } from './_internal/context.js';
import { now, transact } from './_internal/context.js';
import type { AuditEventView, ListView } from './views.js';
import { auditEventView } from './views.js';
import { openCursor, sealCursor } from './_internal/cursor.js';

/**
 * Data keys of each audit event type. The spec fixes those of `license.status_changed` and
 * `webhook.received`; the others are this engine's choice (docs/decisions.md).
 */
export interface AuditData {
  'license.created': { plan: string; source: string };
  'license.status_changed': { from: string; to: string; source: string };
  'license.updated': { fields: string[]; source: string };
  'activation.created': { activation: string; fingerprint: string };
  'activation.deleted': { activation: string; fingerprint: string; source: string };
  'webhook.received': { provider: string; eventType: string; result: string; detail: string };
  'signing_key.created': { product: string; kid: string };
  'signing_key.rotated': { product: string; kid: string; retiredKid: string | null };
  'signing_key.exported': { product: string; kids: string[] };
  'account.plan_changed': { from: string; to: string };
  'sender_domain.claimed': { domain: string };
  'sender_domain.checked': { domain: string; status: string; ownership: boolean; spf: boolean; dkim: boolean };
  'sender_domain.released': { domain: string };
  'account.exported': { format: string; exportId: string };
  'account.imported': { format: string; from: string };
}

/** Appends one audit event inside the caller's transaction. */
export async function audit<T extends AuditEventType>(
  ctx: EngineContext,
  tx: StoreTx,
  event: { accountId: string; type: T; licenseId: string | null; data: AuditData[T] },
): Promise<void> {
  // Held for the commit where the store can (an append with a fresh id has no clash to report).
  await tx.insert(
    'auditEvents',
    {
      id: ctx.ids.next('evt'),
      accountId: event.accountId,
      type: event.type,
      licenseId: event.licenseId,
      data: { ...event.data },
      createdAt: now(ctx),
    },
    { defer: true },
  );
}

/** `GET /events`: newest first, optionally one license's events. */
export async function listEvents(
  ctx: EngineContext,
  accountId: string,
  options: { license?: string | null; cursor?: string | null } = {},
): Promise<ListView<AuditEventView>> {
  const where: { accountId: string; licenseId?: string } = { accountId };
  if (options.license !== undefined && options.license !== null && options.license !== '') {
    if (typeof options.license !== 'string') throw new LicensingError('invalid_request', 'license must be a license ID');
    where.licenseId = options.license;
  }
  const scope = ['events', accountId, where.licenseId] as const;
  const cursor = openCursor(ctx, scope, options.cursor);
  return transact(ctx, async (tx) => {
    const page = await tx.page('auditEvents', { where, cursor, limit: 50, order: 'desc' });
    return { data: page.data.map(auditEventView), nextCursor: sealCursor(ctx, scope, page.nextCursor) };
  });
}
