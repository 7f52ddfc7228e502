import { StoreConflictError } from '@svc-licensing/license-engine';
import type { ClientLicenseRecords, Collection, ProviderCustomerRecords, Page, PageQuery, RecordMap, StoreTx, Where } from '@svc-licensing/license-engine';
import type { ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { duplicateKeyName, isDuplicateKey } from './errors.js';
import { tables } from './schema.js';

/** Runs one statement with `?` placeholders on the transaction's connection. */
export type Run = <T extends RowDataPacket[] | ResultSetHeader>(sql: string, values: readonly SqlValue[]) => Promise<T>;

/** What a placeholder binds: column values are strings or NULL; numbers only in raw units. */
export type SqlValue = string | number | null;

/**
 * A write held for later (`{ defer: true }`): sent with the unit's next statement or its COMMIT.
 * `collection` names the clash of a duplicate key; `mustMatch` makes a write that matched no row
 * (an update of a missing record) fail the unit.
 */
export interface HeldWrite {
  sql: string;
  values: readonly SqlValue[];
  collection: Collection;
  mustMatch?: string;
}

interface DocRow extends RowDataPacket {
  doc: string;
}
interface CountRow extends RowDataPacket {
  n: number | string;
}

/** The column value of a field: NULL for a missing value, the text of anything else. */
const columnValue = (value: unknown): SqlValue =>
  value === undefined || value === null ? null : typeof value === 'string' ? value : JSON.stringify(value);

const quote = (identifier: string): string => `\`${identifier}\``;

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

interface ClientRow extends RowDataPacket {
  product: string | null;
  license: string | null;
  plan: string | null;
  account: string | null;
  activation: string | null;
  signing_key: string | null;
}

const t = (collection: Collection): string => quote(tables[collection].table);
const c = (collection: Collection, field: string): string => (field === 'id' ? '`id`' : quote(tables[collection].columns.get(field)!));

/** The license's plan, account and activation for a fingerprint, joined to licenses `l`. */
const LICENSE_PARTS_JOINS =
  `LEFT JOIN ${t('plans')} \`pl\` ON \`pl\`.\`id\` = \`l\`.${c('licenses', 'planId')} ` +
  `LEFT JOIN ${t('accounts')} \`a\` ON \`a\`.\`id\` = \`l\`.${c('licenses', 'accountId')} ` +
  `LEFT JOIN ${t('activations')} \`act\` ON \`act\`.${c('activations', 'licenseId')} = \`l\`.\`id\` AND \`act\`.${c('activations', 'fingerprint')} = ? `;

/**
 * `readClientLicense` as one statement from the product's row: each record joined by the same
 * keys the separate reads use, the active signing key joined by its index (a correlated
 * `ORDER BY ... LIMIT 1` subquery cost the database a third more). No row: the product does not
 * exist, and {@link CLIENT_LICENSE_WITHOUT_PRODUCT_SQL} reads the rest.
 */
const CLIENT_LICENSE_SQL =
  'SELECT `p`.`doc` AS `product`, `l`.`doc` AS `license`, `pl`.`doc` AS `plan`, `a`.`doc` AS `account`, `act`.`doc` AS `activation`, `k`.`doc` AS `signing_key` ' +
  `FROM ${t('products')} \`p\` ` +
  `LEFT JOIN ${t('signingKeys')} \`k\` ON \`k\`.${c('signingKeys', 'productId')} = \`p\`.\`id\` AND \`k\`.${c('signingKeys', 'status')} = 'active' ` +
  `LEFT JOIN ${t('licenses')} \`l\` ON \`l\`.${c('licenses', 'keyHash')} = ? ` +
  LICENSE_PARTS_JOINS +
  'WHERE `p`.`id` = ?';

/** The license side of `readClientLicense` for a product that does not exist (a refused call). */
const CLIENT_LICENSE_WITHOUT_PRODUCT_SQL =
  'SELECT NULL AS `product`, `l`.`doc` AS `license`, `pl`.`doc` AS `plan`, `a`.`doc` AS `account`, `act`.`doc` AS `activation`, NULL AS `signing_key` ' +
  `FROM ${t('licenses')} \`l\` ` +
  LICENSE_PARTS_JOINS +
  `WHERE \`l\`.${c('licenses', 'keyHash')} = ?`;

/**
 * `readProviderCustomer`: the mapping and the account's customer with the e-mail in the mapping's
 * document (both tables are `utf8mb4_bin`, so the comparison is the column's exact match that
 * `findOne` makes; the customer side is an `eq_ref` on its unique key). Both lookups are unique
 * keys, so there is at most one row.
 */
const PROVIDER_CUSTOMER_SQL =
  'SELECT `pc`.`doc` AS `mapping`, `cu`.`doc` AS `customer` ' +
  `FROM ${t('providerCustomers')} \`pc\` ` +
  `LEFT JOIN ${t('customers')} \`cu\` ON \`cu\`.${c('customers', 'accountId')} = ? AND \`cu\`.${c('customers', 'email')} = JSON_UNQUOTE(JSON_EXTRACT(\`pc\`.\`doc\`, '$.email')) ` +
  `WHERE \`pc\`.${c('providerCustomers', 'integrationId')} = ? AND \`pc\`.${c('providerCustomers', 'providerCustomerId')} = ? ` +
  'ORDER BY `pc`.`id`, `cu`.`id` LIMIT 1';

interface ProviderCustomerRow extends RowDataPacket {
  mapping: string;
  customer: string | null;
}

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

const doc = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

const parse = <C extends Collection>(rows: DocRow[]): RecordMap[C][] => rows.map((r) => JSON.parse(r.doc) as RecordMap[C]);

/**
 * The store operations of one unit of work, as SQL on one connection. Every value is bound to a
 * placeholder; identifiers come only from the fixed table maps.
 */
export function createTx(run: Run, options: { readOnly?: boolean; hold?: (write: HeldWrite) => void } = {}): StoreTx {
  const writable = () => {
    if (options.readOnly) throw new TypeError('mysql store: a write in a read-only unit of work');
  };
  /**
   * Records this unit inserted (held or sent) and has not deleted since: an update of one needs no
   * check that it matched, since the unit holds the row's lock from its insert to its COMMIT.
   */
  const inserted = new Set<string>();
  const rowKey = (collection: Collection, id: string) => `${collection}\u0000${id}`;
  const select = async <C extends Collection>(collection: C, where: object, tail: string, lock: boolean | undefined) => {
    const { sql, values } = conditions(collection, where);
    const rows = await run<DocRow[]>(
      `SELECT \`doc\` FROM ${quote(tables[collection].table)}${whereSql(sql)} ORDER BY \`id\`${tail}${lock ? ' FOR UPDATE' : ''}`,
      values,
    );
    return parse<C>(rows);
  };

  const write = async (collection: Collection, sql: string, values: SqlValue[]): Promise<ResultSetHeader> => {
    try {
      return await run<ResultSetHeader>(sql, values);
    } catch (error) {
      throw conflictOf(error, [collection]);
    }
  };

  const recordColumns = (collection: Collection, record: object): { names: string[]; values: SqlValue[] } => {
    const fields = record as Record<string, unknown>;
    const names: string[] = [];
    const values: SqlValue[] = [];
    for (const [field, name] of tables[collection].columns) {
      names.push(quote(name));
      values.push(columnValue(fields[field]));
    }
    return { names, values };
  };

  return {
    async get(collection, id, options) {
      const [record] = await select(collection, { id }, '', options?.lock);
      return record ?? null;
    },
    async findOne(collection, where, options) {
      const [record] = await select(collection, where, ' LIMIT 1', options?.lock);
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
        `SELECT \`doc\` FROM ${quote(tables[collection].table)}${whereSql(sql)} ORDER BY \`id\` ${desc ? 'DESC' : 'ASC'} LIMIT ?`,
        values,
      );
      const data = parse<C>(rows.slice(0, query.limit));
      const last = data[data.length - 1] as { id: string } | undefined;
      return { data, nextCursor: rows.length > query.limit && last ? encodeCursor(last.id) : null };
    },
    async readClientLicense(query): Promise<ClientLicenseRecords> {
      let rows = await run<ClientRow[]>(CLIENT_LICENSE_SQL, [query.keyHash, query.fingerprint, query.productId]);
      if (rows.length === 0) rows = await run<ClientRow[]>(CLIENT_LICENSE_WITHOUT_PRODUCT_SQL, [query.fingerprint, query.keyHash]);
      const row = rows[0];
      const license = doc<RecordMap['licenses']>(row?.license ?? null);
      // Several active keys (never made by the engine): the lowest id, as the separate read picks.
      const keys = rows.map((r) => doc<RecordMap['signingKeys']>(r.signing_key)).filter((k) => k !== null);
      return {
        product: doc(row?.product ?? null),
        license,
        plan: license ? doc(row?.plan ?? null) : null,
        account: license ? doc(row?.account ?? null) : null,
        activation: license ? doc(row?.activation ?? null) : null,
        signingKey: keys.reduce<RecordMap['signingKeys'] | null>((low, k) => (low === null || k.id < low.id ? k : low), null),
      };
    },
    async readProviderCustomer(query): Promise<ProviderCustomerRecords> {
      const rows = await run<ProviderCustomerRow[]>(PROVIDER_CUSTOMER_SQL, [query.accountId, query.integrationId, query.providerCustomerId]);
      const row = rows[0];
      return { mapping: doc(row?.mapping ?? null), customer: doc(row?.customer ?? null) };
    },
    async insert(collection, record, writeOptions) {
      writable();
      const { names, values } = recordColumns(collection, record);
      const placeholders = ['?', '?', ...names.map(() => '?')].join(', ');
      const sql = `INSERT INTO ${quote(tables[collection].table)} (\`id\`, \`doc\`${names.map((n) => `, ${n}`).join('')}) VALUES (${placeholders})`;
      const bound = [columnValue(record.id), JSON.stringify(record), ...values];
      if (writeOptions?.defer && options.hold) options.hold({ sql, values: bound, collection });
      else await write(collection, sql, bound);
      inserted.add(rowKey(collection, record.id));
    },
    async update(collection, record, writeOptions) {
      writable();
      const { names, values } = recordColumns(collection, record);
      const sql = `UPDATE ${quote(tables[collection].table)} SET \`doc\` = ?${names.map((n) => `, ${n} = ?`).join('')} WHERE \`id\` = ?`;
      const bound = [JSON.stringify(record), ...values, columnValue(record.id)];
      const missing = `no ${collection} record ${record.id} to update`;
      if (writeOptions?.defer && options.hold) {
        const held: HeldWrite = { sql, values: bound, collection };
        if (!inserted.has(rowKey(collection, record.id))) held.mustMatch = missing;
        return options.hold(held);
      }
      const result = await write(collection, sql, bound);
      // The driver reports matched rows (CLIENT_FOUND_ROWS), so an unchanged record still counts.
      if (result.affectedRows === 0) throw new Error(missing);
    },
    async delete(collection, id, writeOptions) {
      writable();
      const sql = `DELETE FROM ${quote(tables[collection].table)} WHERE \`id\` = ?`;
      inserted.delete(rowKey(collection, id));
      if (writeOptions?.defer && options.hold) return options.hold({ sql, values: [id], collection });
      await run<ResultSetHeader>(sql, [id]);
    },
  };
}
