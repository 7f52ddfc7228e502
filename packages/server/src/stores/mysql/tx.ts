import { StoreConflictError } from '@svc-licensing/license-engine';
import type { Collection, Page, PageQuery, RecordMap, StoreTx, Where } from '@svc-licensing/license-engine';
import type { ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import type { ClientLicenseReads } from './client-reads.js';
import { duplicateKeyName, isDuplicateKey } from './errors.js';
import type { HeldWrite } from './held.js';
import { HeldRows } from './held-rows.js';
import { readClientLicense, readProviderCustomer } from './joined-reads.js';
import { dueDeliveries } from './due-deliveries.js';
import { columnValue, recordColumns } from './columns.js';
import { readLicenseParents } from './license-parents.js';
import { NO_POSITION_COLUMNS, POSITION_COLUMNS, deletePosition, joinPosition, productDoc, setPosition, withPosition } from './product-revocations.js';
import type { PositionColumns } from './product-revocations.js';
import { recordRevocationEntry } from './revocation-entries.js';
import { quote, tables } from './schema.js';
import type { Run, SqlValue, UnionableRead } from './statement.js';
import { NO_LIMIT } from './statement.js';

interface DocRow extends RowDataPacket, PositionColumns {
  doc: string;
}
interface CountRow extends RowDataPacket {
  n: number | string;
}

function column(collection: Collection, field: string): string {
  if (field === 'id') return quote('id');
  const name = tables[collection].columns.get(field);
  if (!name) throw new Error(`mysql store: ${collection}.${field} is not an indexed field`);
  return quote(name);
}

/** `WHERE` conditions for an equality filter; `null` matches NULL. */
function conditions(collection: Collection, where: object): { sql: string[]; values: SqlValue[] } {
  const sql: string[] = [];
  const values: SqlValue[] = [];
  for (const [field, value] of Object.entries(where)) {
    if (value === undefined) continue;
    if (value === null) sql.push(`${column(collection, field)} IS NULL`);
    else {
      sql.push(`${column(collection, field)} = ?`);
      values.push(columnValue(value));
    }
  }
  return { sql, values };
}

const whereSql = (parts: string[]): string => (parts.length ? ` WHERE ${parts.join(' AND ')}` : '');

/** Escapes LIKE wildcards with `!` (valid whatever the server's backslash setting is). */
const likeContains = (text: string): string => `%${text.toLowerCase().replace(/[!%_]/g, '!$&')}%`;

/** The cursor is the base64url of the last returned ID: opaque to callers, stable under inserts. */
export const encodeCursor = (id: string): string => Buffer.from(id, 'utf8').toString('base64url');
export const decodeCursor = (cursor: string): string => Buffer.from(cursor, 'base64url').toString('utf8');

/**
 * A duplicate-key error as the port's `StoreConflictError`, named by the first of `collections`
 * that has the key (a held batch may write several); any other error as it is.
 */
export function conflictOf(error: unknown, collections: readonly Collection[]): unknown {
  if (!isDuplicateKey(error)) return error;
  const key = duplicateKeyName(error);
  const collection = collections.find((c) => tables[c].uniqueKeys.has(key)) ?? collections[0]!;
  return new StoreConflictError(collection, tables[collection].uniqueKeys.get(key) ?? key);
}

/** What a read of `collection` selects from: a product's row joined to its list position (product-revocations.ts). */
const source = (collection: Collection): string =>
  collection === 'products'
    ? `\`p\`.\`doc\`, ${POSITION_COLUMNS} FROM ${quote(tables.products.table)} \`p\` ${joinPosition('p')}`
    : `\`doc\` FROM ${quote(tables[collection].table)}`;

/** {@link source} as a part of a `UNION ALL` of one-row reads: every part has the position's columns, NULL but for products. */
const unionSource = (collection: Collection): string =>
  collection === 'products' ? source(collection) : `\`doc\`, ${NO_POSITION_COLUMNS} FROM ${quote(tables[collection].table)}`;

/** The records of `rows`; a product's with its list position overlaid. */
const parse = <C extends Collection>(collection: C, rows: DocRow[]): RecordMap[C][] =>
  collection === 'products'
    ? rows.map((r) => withPosition(JSON.parse(r.doc) as RecordMap['products'], r) as RecordMap[C])
    : rows.map((r) => JSON.parse(r.doc) as RecordMap[C]);

/** The JSON a record's `doc` holds: a product's without its list position, which its own row holds. */
const docOf = (collection: Collection, record: object): string =>
  collection === 'products' ? productDoc(record as RecordMap['products']) : JSON.stringify(record);

/** The UPDATE that replaces a record by id: its document (`doc`, also returned) and its column copies. */
function updateStatement<C extends Collection>(collection: C, record: RecordMap[C]): { sql: string; values: SqlValue[]; doc: string } {
  const { names, values } = recordColumns(collection, record);
  const sql = `UPDATE ${quote(tables[collection].table)} SET \`doc\` = ?${names.map((n) => `, ${n} = ?`).join('')} WHERE \`id\` = ?`;
  const doc = docOf(collection, record);
  return { sql, values: [doc, ...values, columnValue(record.id)], doc };
}

/**
 * `StoreTx.updateIfUnchanged`: one UPDATE matching the row only while its whole document is still
 * the one read (`doc` compares as binary: utf8mb4_bin), held for the COMMIT when the unit holds
 * writes; matching no row fails the unit with a `StoreConflictError` on index `unchanged`. Returns
 * the `doc` it writes.
 */
async function updateIfUnchanged<C extends Collection>(
  collection: C,
  expected: string,
  record: RecordMap[C],
  hold: ((write: HeldWrite) => void) | undefined,
  write: (collection: Collection, sql: string, values: SqlValue[]) => Promise<ResultSetHeader>,
): Promise<string> {
  const update = updateStatement(collection, record);
  const sql = `${update.sql} AND \`doc\` = ?`;
  const bound = [...update.values, expected];
  // A product's list position is written after its document, as by `update`.
  if (hold) hold({ sql, values: bound, collection, mustMatch: `no ${collection} record ${record.id} as read`, unchanged: true });
  else if ((await write(collection, sql, bound)).affectedRows === 0) throw new StoreConflictError(collection, 'unchanged');
  await thenPosition(positionOf(collection, record), hold, write);
  return update.doc;
}

/** The write of a product's list position that goes with a write of the product (product-revocations.ts); null for other collections. */
const positionOf = (collection: Collection, record: object): HeldWrite | null => (collection === 'products' ? setPosition(record as RecordMap['products']) : null);

/**
 * Holds `position` after the product's write it goes with (`hold`: that write was held) or sends it
 * after that write. A position changed by the engine comes from a locked read of the product, which
 * locked the position's row too (the read joins it).
 */
async function thenPosition(
  position: HeldWrite | null,
  hold: ((write: HeldWrite) => void) | undefined,
  write: (collection: Collection, sql: string, values: SqlValue[]) => Promise<ResultSetHeader>,
): Promise<void> {
  if (!position) return;
  if (hold) hold(position);
  else await write(position.collection, position.sql, [...position.values]);
}

/**
 * `StoreTx.update`: held (`hold`) or sent. An update of a row the unit holds locked needs no check
 * that it matched; with `compareLocked` (Galera) one of a row read locked is a compare and set
 * against the `doc` read (held-rows.ts says why).
 */
async function updateRecord<C extends Collection>(
  collection: C,
  record: RecordMap[C],
  unit: { hold: ((write: HeldWrite) => void) | undefined; held: HeldRows; compareLocked: boolean; write: (collection: Collection, sql: string, values: SqlValue[]) => Promise<ResultSetHeader> },
): Promise<void> {
  const { hold, held, write } = unit;
  const read = unit.compareLocked ? held.doc(collection, record.id) : undefined;
  if (typeof read === 'string') {
    held.add(collection, record.id, await updateIfUnchanged(collection, read, record, hold, write));
    return;
  }
  const { sql, values: bound } = updateStatement(collection, record);
  const missing = `no ${collection} record ${record.id} to update`;
  if (hold) hold({ sql, values: bound, collection, ...(held.has(collection, record.id) ? {} : { mustMatch: missing }) });
  // The driver reports matched rows (CLIENT_FOUND_ROWS), so an unchanged record still counts.
  else if ((await write(collection, sql, bound)).affectedRows === 0) throw new Error(missing);
  await thenPosition(positionOf(collection, record), hold, write);
}

/** An unlocked read's `UNION ALL` part: by id (at most one row) a bare part, else with its order and limit. */
const unionPart = (collection: Collection, where: string, one: boolean | 'id'): UnionableRead =>
  one === 'id'
    ? { select: `${unionSource(collection)}${where}`, bare: true }
    : { select: `${unionSource(collection)}${where} ORDER BY \`id\`${one ? ' LIMIT 1' : NO_LIMIT}` };

/**
 * The store operations of one unit of work, as SQL on one connection. Every value is bound to a
 * placeholder; identifiers come only from the fixed table maps.
 */
export function createTx(
  run: Run,
  options: { readOnly?: boolean; hold?: (write: HeldWrite) => void; clientReads?: ClientLicenseReads; compareLocked?: boolean } = {},
): StoreTx {
  const writable = () => {
    if (options.readOnly) throw new TypeError('mysql store: a write in a read-only unit of work');
  };
  const held = new HeldRows();
  /** `one`: at most one row (`LIMIT 1`, or `'id'`: by id). Unlocked, it may join the other unlocked reads of its query (read-unions.ts). */
  const select = async <C extends Collection>(collection: C, where: object, tail: string, lock: boolean | undefined, one: boolean | 'id' = false) => {
    const { sql, values } = conditions(collection, where);
    const whereClause = whereSql(sql);
    const rest = `${whereClause} ORDER BY \`id\``;
    const unionable = lock ? undefined : unionPart(collection, whereClause, one);
    // A product's locked read locks its position row too (the join's rows): a write of the position from it cannot race.
    const rows = await run<DocRow[]>(`SELECT ${source(collection)}${rest}${tail}${lock ? ' FOR UPDATE' : ''}`, values, unionable);
    const records = parse(collection, rows);
    if (lock) held.found(collection, rows, records);
    return records;
  };

  const write = async (collection: Collection, sql: string, values: SqlValue[]): Promise<ResultSetHeader> => {
    try {
      return await run<ResultSetHeader>(sql, values);
    } catch (error) {
      throw conflictOf(error, [collection]);
    }
  };

  return {
    async get(collection, id, options) {
      const [record] = await select(collection, { id }, '', options?.lock, 'id');
      return record ?? null;
    },
    async getMany<C extends Collection>(collection: C, ids: readonly string[], options?: { lock?: boolean }) {
      if (ids.length === 0) return [];
      // One statement, rows locked in id order (ORDER BY id) whatever the order asked.
      const rows = await run<DocRow[]>(
        `SELECT ${source(collection)} WHERE \`id\` IN (${ids.map(() => '?').join(', ')}) ORDER BY \`id\`${options?.lock ? ' FOR UPDATE' : ''}`,
        [...ids],
      );
      const records = parse(collection, rows);
      if (options?.lock) held.found(collection, rows, records);
      const found = new Map(records.map((r) => [(r as { id: string }).id, r]));
      return ids.map((id) => found.get(id) ?? null);
    },
    async findOne(collection, where, options) {
      const [record] = await select(collection, where, ' LIMIT 1', options?.lock, true);
      return record ?? null;
    },
    async findMany(collection, where, options) {
      return select(collection, where, '', options?.lock);
    },
    async count<C extends Collection>(collection: C, where: Where<C>) {
      const { sql, values } = conditions(collection, where);
      const rows = await run<CountRow[]>(`SELECT COUNT(*) AS \`n\` FROM ${quote(tables[collection].table)}${whereSql(sql)}`, values);
      return Number(rows[0]?.n ?? 0);
    },
    async page<C extends Collection>(collection: C, query: PageQuery<C>): Promise<Page<RecordMap[C]>> {
      if (!Number.isSafeInteger(query.limit) || query.limit < 1) throw new RangeError(`mysql store: bad page limit ${query.limit}`);
      const { sql, values } = conditions(collection, query.where ?? {});
      if (query.search) {
        const pattern = likeContains(query.search.text);
        sql.push(`(${query.search.fields.map((f) => `LOWER(${column(collection, f)}) LIKE ? ESCAPE '!'`).join(' OR ')})`);
        for (const _ of query.search.fields) values.push(pattern);
      }
      const desc = query.order === 'desc';
      if (query.cursor) {
        sql.push(desc ? '`id` < ?' : '`id` > ?');
        values.push(decodeCursor(query.cursor));
      }
      // The limit is a checked integer; it is bound as text, which MySQL 8 and MariaDB both accept.
      values.push(String(query.limit + 1));
      const rows = await run<DocRow[]>(
        `SELECT ${source(collection)}${whereSql(sql)} ORDER BY \`id\` ${desc ? 'DESC' : 'ASC'} LIMIT ?`,
        values,
      );
      const data = parse(collection, rows.slice(0, query.limit));
      const last = data[data.length - 1] as { id: string } | undefined;
      return { data, nextCursor: rows.length > query.limit && last ? encodeCursor(last.id) : null };
    },
    readClientLicense: (query) => (options.clientReads ? options.clientReads.read(query) : readClientLicense(run, query)),
    readProviderCustomer: (query) => readProviderCustomer(run, query),
    readLicenseParents: (licenseId) => readLicenseParents(run, licenseId),
    dueDeliveries: (query) => dueDeliveries(run, query),
    recordRevocationEntry: (entry, at) =>
      (writable(), recordRevocationEntry(entry, at, { hold: options.hold, write, licenseHeld: held.has('licenses', entry.licenseId) })),
    async insert(collection, record, writeOptions) {
      writable();
      const { names, values } = recordColumns(collection, record);
      const head = `INSERT INTO ${quote(tables[collection].table)} (\`id\`, \`doc\`${names.map((n) => `, ${n}`).join('')})`;
      const sql = `${head} VALUES (${['?', '?', ...names.map(() => '?')].join(', ')})`;
      const bound = [columnValue(record.id), docOf(collection, record), ...values];
      const hold = writeOptions?.defer ? options.hold : undefined;
      if (hold) hold({ sql, values: bound, collection, joinable: { kind: 'insert', head } });
      else await write(collection, sql, bound);
      await thenPosition(positionOf(collection, record), hold, write);
      held.add(collection, record.id);
    },
    async update(collection, record, writeOptions) {
      writable();
      await updateRecord(collection, record, { hold: writeOptions?.defer ? options.hold : undefined, held, compareLocked: options.compareLocked === true, write });
    },
    async updateIfUnchanged(collection, expected, record) {
      writable();
      const written = await updateIfUnchanged(collection, docOf(collection, expected), record, options.hold, write);
      if (held.has(collection, record.id)) held.add(collection, record.id, written);
    },
    async delete(collection, id, writeOptions) {
      writable();
      const head = `DELETE FROM ${quote(tables[collection].table)} WHERE \`id\``;
      held.delete(collection, id);
      const hold = writeOptions?.defer ? options.hold : undefined;
      if (hold) hold({ sql: `${head} = ?`, values: [id], collection, joinable: { kind: 'delete', head } });
      else await run<ResultSetHeader>(`${head} = ?`, [id]);
      await thenPosition(collection === 'products' ? deletePosition(id) : null, hold, write);
    },
  };
}
