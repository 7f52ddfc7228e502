import type { ProductRecord } from '@svc-licensing/license-engine';
import type { HeldWrite } from './held.js';

// A product's revocation list position (`revocationSeq`, `revocationsAt` of its record) lives in a
// row of its own, `product_revocations` (migration 60), not in the product's `doc`. A revoke moves
// it with the last statement of its writes: no foreign key points at that row, so taking its lock
// last holds it for that statement and the COMMIT only, while the product row, which the license's
// write checks through its foreign key (a shared lock), is never locked exclusively by a revoke.
// Every product row has its position row (the migration made them; the store's insert and delete
// of a product write both). The engine sees one record: reads overlay the row, writes split it.

/** The table of the products' list positions. */
export const PRODUCT_REVOCATIONS = '`product_revocations`';

/** The position's columns as a product read selects them (its alias `r`). */
export const POSITION_COLUMNS = '`r`.`seq` AS `rvl_seq`, `r`.`issued_at` AS `rvl_at`';

/** The same columns, NULL, in a `UNION ALL` part of a table without a position (every part has them). */
export const NO_POSITION_COLUMNS = 'NULL AS `rvl_seq`, NULL AS `rvl_at`';

/** The join that adds a product's position row to a read of `products` aliased `alias`. */
export const joinPosition = (alias: string): string => `LEFT JOIN ${PRODUCT_REVOCATIONS} \`r\` ON \`r\`.\`product_id\` = \`${alias}\`.\`id\``;

/** A row's position columns (numbers, or strings for BIGINT on some settings; NULL when not set). */
export interface PositionColumns {
  rvl_seq?: number | string | null;
  rvl_at?: number | string | null;
}

/**
 * `product` with the position of its row: `revocationSeq` and `revocationsAt` as the row holds
 * them, absent where the row has NULL (a product whose list never moved). Changes `product`.
 */
export function withPosition<T extends ProductRecord>(product: T, row: PositionColumns): T {
  delete product.revocationSeq;
  delete product.revocationsAt;
  if (row.rvl_seq !== null && row.rvl_seq !== undefined) product.revocationSeq = Number(row.rvl_seq);
  if (row.rvl_at !== null && row.rvl_at !== undefined) product.revocationsAt = Number(row.rvl_at);
  return product;
}

/** The product's `doc`: its record without the position, which its own row holds. */
export function productDoc(record: ProductRecord): string {
  const { revocationSeq: _seq, revocationsAt: _at, ...rest } = record;
  return JSON.stringify(rest);
}

const SET_POSITION =
  `INSERT INTO ${PRODUCT_REVOCATIONS} (\`product_id\`, \`seq\`, \`issued_at\`) VALUES (?, ?, ?) ` +
  'ON DUPLICATE KEY UPDATE `seq` = VALUES(`seq`), `issued_at` = VALUES(`issued_at`)';

/**
 * The write of a product's position as its record has it (an insert, or an update that replaces
 * the record): the row inserted, or replaced when it is there. The engine writes a changed position
 * only from a product it read locked, which locks this row too (the read joins it).
 */
export function setPosition(record: ProductRecord): HeldWrite {
  return { sql: SET_POSITION, values: [record.id, record.revocationSeq ?? null, record.revocationsAt ?? null], collection: 'products' };
}

/** The product's position row deleted with the product. */
export function deletePosition(id: string): HeldWrite {
  return { sql: `DELETE FROM ${PRODUCT_REVOCATIONS} WHERE \`product_id\` = ?`, values: [id], collection: 'products' };
}

/** The next `seq`, and `issued_at` the later of its own and `?`, of a row that must be there (a missing one matches nothing). */
const BUMP_UPDATE =
  `UPDATE ${PRODUCT_REVOCATIONS} SET \`seq\` = COALESCE(\`seq\`, 0) + 1, \`issued_at\` = GREATEST(COALESCE(\`issued_at\`, 0), ?) WHERE \`product_id\` = ?`;

/** The same as an upsert: a product known to exist gets its row if it had none. */
const BUMP_UPSERT =
  `INSERT INTO ${PRODUCT_REVOCATIONS} (\`product_id\`, \`seq\`, \`issued_at\`) VALUES (?, 1, ?) ` +
  'ON DUPLICATE KEY UPDATE `seq` = COALESCE(`seq`, 0) + 1, `issued_at` = GREATEST(COALESCE(`issued_at`, 0), VALUES(`issued_at`))';

/**
 * The write that moves a product's list to its next `seq` (`revocationsAt` the later of its own and
 * `at`), sent after the unit's other held writes (`last`): the row's lock is then taken by the
 * statement before the COMMIT. `productKnown`: the unit holds a row whose foreign key keeps the
 * product in place (its license, read locked), so the write is an upsert that needs no check;
 * otherwise an update that must match, so a missing product fails the unit.
 */
export function bumpPosition(productId: string, at: number, productKnown: boolean): HeldWrite {
  if (productKnown) return { sql: BUMP_UPSERT, values: [productId, at], collection: 'products', last: true };
  return { sql: BUMP_UPDATE, values: [at, productId], collection: 'products', last: true, mustMatch: `no products record ${productId} to update` };
}
