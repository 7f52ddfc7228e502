import type { NotificationDeliveryRecord } from '@svc-licensing/license-engine';
import type { RowDataPacket } from 'mysql2/promise';
import type { Run } from './statement.js';

interface IdRow extends RowDataPacket {
  id: string;
}
interface DocRow extends RowDataPacket {
  doc: string;
}

/**
 * Rounds of candidates one claim looks at before it settles for fewer than asked: each round tries
 * ids not tried before, so a claim ends once it has `limit` rows or has tried every due id it sees.
 */
const ROUNDS = 64;

/**
 * `StoreTx.dueDeliveries` on MySQL/MariaDB, without ever locking an index range (a locking read of
 * a range would hold the gap where units insert new deliveries): each round reads the ids of the
 * soonest due deliveries by the `(state, due_at)` index without a lock, then locks those rows by
 * primary key `FOR UPDATE SKIP LOCKED`, checked due again on their latest version. A row another
 * claimer holds is skipped, not waited for, and one a committed claim took is no longer due; the
 * next round looks past the ids already seen, until `limit` rows are locked or none is left. The
 * locking read is forced onto the primary key: through the `(state, due_at)` index it would lock
 * every due row it scanned, and other claimers would skip rows this one does not take.
 * Across Galera nodes two claims of one row conflict at certification, and the store runs the
 * loser again.
 */
export async function dueDeliveries(run: Run, query: { now: number; limit: number }): Promise<NotificationDeliveryRecord[]> {
  if (!Number.isSafeInteger(query.limit) || query.limit < 1 || !Number.isSafeInteger(query.now)) return [];
  const now = String(query.now);
  const seen: string[] = [];
  const due: NotificationDeliveryRecord[] = [];
  for (let round = 0; round < ROUNDS && due.length < query.limit; round++) {
    const past = seen.length === 0 ? '' : ` AND \`id\` NOT IN (${seen.map(() => '?').join(', ')})`;
    const ids = await run<IdRow[]>(
      `SELECT \`id\` FROM \`notification_deliveries\` WHERE \`state\` = 'pending' AND \`due_at\` <= ?${past} ORDER BY \`due_at\`, \`id\` LIMIT ?`,
      [now, ...seen, String(query.limit - due.length)],
    );
    if (ids.length === 0) break;
    seen.push(...ids.map((r) => r.id));
    const rows = await run<DocRow[]>(
      `SELECT \`doc\` FROM \`notification_deliveries\` FORCE INDEX (PRIMARY) WHERE \`id\` IN (${ids.map(() => '?').join(', ')}) ` +
        "AND `state` = 'pending' AND `due_at` <= ? FOR UPDATE SKIP LOCKED",
      [...ids.map((r) => r.id), now],
    );
    for (const row of rows) due.push(JSON.parse(row.doc) as NotificationDeliveryRecord);
  }
  return due.sort((a, b) => (a.dueAt as number) - (b.dueAt as number) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
