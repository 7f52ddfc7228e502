import type { RevocationEntryRecord } from '@svc-licensing/license-engine';
import type { Collection } from '@svc-licensing/license-engine';
import type { ResultSetHeader } from 'mysql2/promise';
import type { HeldWrite } from './held.js';
import { bumpPosition } from './product-revocations.js';
import { quote, tables } from './schema.js';
import type { SqlValue } from './statement.js';
import { recordColumns } from './columns.js';

/** The entry's insert, or its replacement when its ID is there (a machine freed again). */
const UPSERT_ENTRY = (() => {
  const names = [...tables.revocationEntries.columns.values()].map(quote);
  return (
    `INSERT INTO ${quote(tables.revocationEntries.table)} (\`id\`, \`doc\`${names.map((n) => `, ${n}`).join('')}) ` +
    `VALUES (${['?', '?', ...names.map(() => '?')].join(', ')}) ` +
    `ON DUPLICATE KEY UPDATE \`doc\` = VALUES(\`doc\`)${names.map((n) => `, ${n} = VALUES(${n})`).join('')}`
  );
})();

/**
 * The port's `recordRevocationEntry` as two writes, held like deferred ones (or sent at once
 * without `hold`), neither read first: the entry inserted or replaced (`ON DUPLICATE KEY UPDATE`),
 * and the product's list moved to its next `seq` (`revocationsAt` = GREATEST(its own, `at`)) in its
 * position row (product-revocations.ts), which goes after the unit's other held writes. That row has
 * no foreign key pointing at it, so its lock, taken by the unit's last statement before the COMMIT,
 * is held only for that statement and the COMMIT: concurrent changes of one product queue there
 * and each takes a `seq` of its own. The license's write before it checks its foreign key to the
 * product (a shared lock, which concurrent revokes share); nothing here locks the product row
 * exclusively, so there is no lock to upgrade and no deadlock. An upsert rather than a delete and an
 * insert: under REPEATABLE READ a delete of a missing row takes a gap lock, and two such units
 * inserting into one gap deadlock. With `licenseHeld` (the unit holds the entry's license row
 * locked: read with a lock) the product exists for the unit (the license's foreign key, no
 * cascade), so the position's write is an upsert with no check; otherwise it must match its row.
 */
export async function recordRevocationEntry(
  entry: RevocationEntryRecord,
  at: number,
  io: {
    hold?: ((write: HeldWrite) => void) | undefined;
    write: (collection: Collection, sql: string, values: SqlValue[]) => Promise<ResultSetHeader>;
    licenseHeld?: boolean;
  },
): Promise<void> {
  const { values } = recordColumns('revocationEntries', entry);
  const upsert: HeldWrite = { sql: UPSERT_ENTRY, values: [entry.id, JSON.stringify(entry), ...values], collection: 'revocationEntries' };
  const position = bumpPosition(entry.productId, at, io.licenseHeld === true);
  for (const w of [upsert, position]) {
    if (io.hold) io.hold(w);
    else {
      const result = await io.write(w.collection, w.sql, [...w.values]);
      if (w.mustMatch && result.affectedRows === 0) throw new Error(w.mustMatch);
    }
  }
}
