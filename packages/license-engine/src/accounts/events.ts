import { LicensingError } from '../_internal/errors.js';
import type { EngineContext } from '../_internal/context.js';
import { transact } from '../_internal/context.js';
import type { AuditEventView, ListView } from '../_internal/views.js';
import { auditEventView } from '../_internal/record-views.js';
import { openCursor, sealCursor } from '../_internal/cursor.js';
import { ACTOR_KINDS, type ActorKind } from '../_internal/audit-records.js';

/** `GET /events`: newest first, optionally one license's events, or those of one kind of actor (`owner`, `member`, `api_key`, `operator`, `customer`). */
export async function listEvents(
  ctx: EngineContext,
  accountId: string,
  options: { license?: string | null; actor?: string | null; cursor?: string | null } = {},
): Promise<ListView<AuditEventView>> {
  const where: { accountId: string; licenseId?: string; actorKind?: ActorKind } = { accountId };
  if (options.license !== undefined && options.license !== null && options.license !== '') {
    if (typeof options.license !== 'string') throw new LicensingError('invalid_request', 'license must be a license ID');
    where.licenseId = options.license;
  }
  if (options.actor !== undefined && options.actor !== null && options.actor !== '') {
    if (!(ACTOR_KINDS as readonly unknown[]).includes(options.actor)) throw new LicensingError('invalid_request', `actor must be one of ${ACTOR_KINDS.join(', ')}`);
    where.actorKind = options.actor as ActorKind;
  }
  const scope = ['events', accountId, where.licenseId, where.actorKind] as const;
  const cursor = openCursor(ctx, scope, options.cursor);
  return transact(ctx, async (tx) => {
    const page = await tx.page('auditEvents', { where, cursor, limit: 50, order: 'desc' });
    return { data: page.data.map(auditEventView), nextCursor: sealCursor(ctx, scope, page.nextCursor) };
  });
}
