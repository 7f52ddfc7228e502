import type { RevocationEntryRecord } from '@svc-licensing/license-engine';
import type { Collection } from '@svc-licensing/license-engine';
import type { ResultSetHeader } from 'mysql2/promise';
import type { HeldWrite } from './held.js';
import { quote, tables } from './schema.js';
import type { SqlValue } from './statement.js';
import { recordColumns } from './columns.js';

/** A number field of the product's `doc`, 0 when absent. */
const docNumber = (field: string) => `COALESCE(CAST(JSON_EXTRACT(\`doc\`, '$.${field}') AS UNSIGNED), 0)`;

/** The product's `revocationSeq` + 1 and `revocationsAt` = GREATEST(its own, ?), in its `doc`. */
const BUMP_SEQ =
  `UPDATE ${quote(tables.products.table)} SET \`doc\` = JSON_SET(\`doc\`, '$.revocationSeq', ${docNumber('revocationSeq')} + 1, ` +
  `'$.revocationsAt', GREATEST(${docNumber('revocationsAt')}, ?)) WHERE \`id\` = ?`;

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
 * without `hold`): the product's `revocationSeq` + 1 and `revocationsAt` = GREATEST(its own, `at`)
 * set inside its `doc`, then the entry inserted or replaced (`ON DUPLICATE KEY UPDATE`), neither
 * read first. The product goes first: its row lock then comes before any foreign-key check of the
 * unit's later writes (the license's) holds that row shared, which two revokes of one product would
 * otherwise deadlock upgrading. An upsert rather than a delete and an insert: under REPEATABLE READ
 * a delete of a missing row takes a gap lock, and two such units inserting into one gap deadlock.
 * With `licenseHeld` (the unit holds the entry's license row locked: read with a lock) the product's
 * update needs no check that it matched: the license's foreign key to its product (no cascade) keeps
 * the product row in place while the license row exists, and that row stays until the COMMIT.
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
  const product: HeldWrite = {
    sql: BUMP_SEQ,
    values: [at, entry.productId],
    collection: 'products',
  };
  if (!io.licenseHeld) product.mustMatch = `no products record ${entry.productId} to update`;
  const { values } = recordColumns('revocationEntries', entry);
  const upsert: HeldWrite = { sql: UPSERT_ENTRY, values: [entry.id, JSON.stringify(entry), ...values], collection: 'revocationEntries' };
  for (const w of [product, upsert]) {
    if (io.hold) io.hold(w);
    else {
      const result = await io.write(w.collection, w.sql, [...w.values]);
      if (w.mustMatch && result.affectedRows === 0) throw new Error(w.mustMatch);
    }
  }
}
