import type { ClientLicenseQuery, ClientLicenseRecords, Collection, ProviderCustomerQuery, ProviderCustomerRecords, RecordMap } from '@svc-licensing/license-engine';
import type { RowDataPacket } from 'mysql2/promise';
import { NO_POSITION_COLUMNS, POSITION_COLUMNS, joinPosition, withPosition } from './product-revocations.js';
import type { PositionColumns } from './product-revocations.js';
import { quote, tables } from './schema.js';
import type { Run, SqlValue } from './statement.js';

const t = (collection: Collection): string => quote(tables[collection].table);
const c = (collection: Collection, field: string): string => (field === 'id' ? '`id`' : quote(tables[collection].columns.get(field)!));

/**
 * `readClientLicense` for `count` calls in one statement: a derived table of the calls (`n`, key
 * hash, fingerprint, product), each joined to its records by the same keys the separate reads use,
 * the active signing key by its index. A call whose product does not exist still gets its license
 * side (the joins are outer from the calls). MariaDB spends about 110 µs of fixed cost on a
 * statement of these six tables (opening and locking each table, optimizing the join) and about
 * 10 µs per call in it (measured: 124 µs for one call, 41 per call for 4, 17 for 16), so calls made
 * at the same moment go together ({@link ClientLicenseReads}).
 */
export function clientLicensesSql(count: number): string {
  // The same string each time: the driver keys its prepared statements by the text (hashed once per string).
  return (clientLicensesSqlBySize[count] ??= clientLicensesSqlOf(count));
}
const clientLicensesSqlBySize: string[] = [];

function clientLicensesSqlOf(count: number): string {
  const calls = Array.from({ length: count }, (_, i) => `SELECT ${i} AS \`n\`, ? AS \`kh\`, ? AS \`fp\`, ? AS \`pid\``).join(' UNION ALL ');
  return (
    'SELECT `q`.`n`, `p`.`doc` AS `product`, ' +
    POSITION_COLUMNS +
    ', `l`.`doc` AS `license`, `pl`.`doc` AS `plan`, `a`.`doc` AS `account`, `act`.`doc` AS `activation`, `k`.`doc` AS `signing_key` ' +
    `FROM (${calls}) \`q\` ` +
    `LEFT JOIN ${t('products')} \`p\` ON \`p\`.\`id\` = \`q\`.\`pid\` ` +
    `${joinPosition('p')} ` +
    `LEFT JOIN ${t('signingKeys')} \`k\` ON \`k\`.${c('signingKeys', 'productId')} = \`p\`.\`id\` AND \`k\`.${c('signingKeys', 'status')} = 'active' ` +
    `LEFT JOIN ${t('licenses')} \`l\` ON \`l\`.${c('licenses', 'keyHash')} = \`q\`.\`kh\` ` +
    `LEFT JOIN ${t('plans')} \`pl\` ON \`pl\`.\`id\` = \`l\`.${c('licenses', 'planId')} ` +
    `LEFT JOIN ${t('accounts')} \`a\` ON \`a\`.\`id\` = \`l\`.${c('licenses', 'accountId')} ` +
    `LEFT JOIN ${t('activations')} \`act\` ON \`act\`.${c('activations', 'licenseId')} = \`l\`.\`id\` AND \`act\`.${c('activations', 'fingerprint')} = \`q\`.\`fp\``
  );
}

/** The values of {@link clientLicensesSql} for `queries`, in its placeholders' order. */
export const clientLicensesValues = (queries: readonly ClientLicenseQuery[]): SqlValue[] =>
  queries.flatMap((q) => [q.keyHash, q.fingerprint, q.productId]);

/** A row of {@link clientLicensesSql}: the call's number and its records' documents (the product's list position in columns of its own). */
export interface ClientRow extends RowDataPacket, PositionColumns {
  n: number;
  product: string | null;
  license: string | null;
  plan: string | null;
  account: string | null;
  activation: string | null;
  signing_key: string | null;
}

/**
 * The answers of {@link clientLicensesSql} for `count` calls, by call: one row each, more when a
 * product has several active keys. `shared` parses the product, plan, account and signing key
 * (the documents many calls read alike, see `SharedDocs`); the license and activation are always
 * parsed anew.
 */
export function clientLicensesOf(
  rows: readonly ClientRow[],
  count: number,
  shared: <T>(text: string | null, overlay?: { key: string; apply: (value: T) => T }) => T | null = doc,
): ClientLicenseRecords[] {
  const found: ClientLicenseRecords[] = [];
  for (const row of rows) {
    const known = found[row.n];
    if (known) {
      // Several active keys (never made by the engine): the lowest id, as the separate read picks.
      const key = shared<RecordMap['signingKeys']>(row.signing_key);
      if (key && (known.signingKey === null || key.id < known.signingKey.id)) known.signingKey = key;
      continue;
    }
    const license = doc<RecordMap['licenses']>(row.license);
    const position = { key: `${row.rvl_seq ?? ''},${row.rvl_at ?? ''}`, apply: (p: RecordMap['products']) => withPosition(p, row) };
    found[row.n] = {
      product: shared(row.product, position),
      license,
      plan: license ? shared(row.plan) : null,
      account: license ? shared(row.account) : null,
      activation: license ? doc(row.activation) : null,
      signingKey: shared(row.signing_key),
    };
  }
  if (found.length !== count || found.includes(undefined as never)) throw new Error(`mysql store: ${rows.length} rows for ${count} client reads`);
  return found;
}

/**
 * `readProviderCustomer`: the mapping, and the account's customer with the e-mail in the mapping's
 * document (both tables are `utf8mb4_bin`, so the comparison is the column's exact match that
 * `findOne` makes; the customer side is an `eq_ref` on its unique key). Both lookups are unique
 * keys, so each read has at most one row. They are two reads of one row each, asked in one turn,
 * so they go as parts of one `UNION ALL` statement (rule 12 of unit-of-work.ts) with the other
 * unlocked reads of the turn; each is also a statement that runs alone.
 */
const PC_WHERE = `WHERE \`pc\`.${c('providerCustomers', 'integrationId')} = ? AND \`pc\`.${c('providerCustomers', 'providerCustomerId')} = ?`;
const PROVIDER_MAPPING_FROM = `FROM ${t('providerCustomers')} \`pc\` ${PC_WHERE} ORDER BY \`pc\`.\`id\` LIMIT 1`;
const PROVIDER_CUSTOMER_FROM =
  `FROM ${t('providerCustomers')} \`pc\` ` +
  `JOIN ${t('customers')} \`cu\` ON \`cu\`.${c('customers', 'accountId')} = ? AND \`cu\`.${c('customers', 'email')} = JSON_UNQUOTE(JSON_EXTRACT(\`pc\`.\`doc\`, '$.email')) ` +
  `${PC_WHERE} ORDER BY \`pc\`.\`id\`, \`cu\`.\`id\` LIMIT 1`;

interface DocRow extends RowDataPacket {
  doc: string;
}

/** The record of `text` (null for SQL NULL), completed by `overlay` when given. */
const doc = <T>(text: string | null, overlay?: { apply: (value: T) => T }): T | null => {
  if (text === null) return null;
  const value = JSON.parse(text) as T;
  return overlay ? overlay.apply(value) : value;
};

/** `readClientLicense` of the port in a unit of work: one statement. */
export async function readClientLicense(run: Run, query: ClientLicenseQuery): Promise<ClientLicenseRecords> {
  const rows = await run<ClientRow[]>(clientLicensesSql(1), clientLicensesValues([query]));
  return clientLicensesOf(rows, 1)[0]!;
}

/** `readProviderCustomer` of the port: two one-row reads in one turn, so one statement. */
export async function readProviderCustomer(run: Run, query: ProviderCustomerQuery): Promise<ProviderCustomerRecords> {
  const [mapping, customer] = await Promise.all([
    run<DocRow[]>(`SELECT \`pc\`.\`doc\` ${PROVIDER_MAPPING_FROM}`, [query.integrationId, query.providerCustomerId], {
      select: `\`pc\`.\`doc\`, ${NO_POSITION_COLUMNS} ${PROVIDER_MAPPING_FROM}`,
    }),
    run<DocRow[]>(`SELECT \`cu\`.\`doc\` ${PROVIDER_CUSTOMER_FROM}`, [query.accountId, query.integrationId, query.providerCustomerId], {
      select: `\`cu\`.\`doc\`, ${NO_POSITION_COLUMNS} ${PROVIDER_CUSTOMER_FROM}`,
    }),
  ]);
  return { mapping: doc(mapping[0]?.doc ?? null), customer: doc(customer[0]?.doc ?? null) };
}
