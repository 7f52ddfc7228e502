import type { Collection } from '@svc-licensing/license-engine';
import { quote, tables } from './schema.js';
import type { SqlValue } from './statement.js';

/** The column value of a field: NULL for a missing value, the text of anything else. */
export const columnValue = (value: unknown): SqlValue =>
  value === undefined || value === null ? null : typeof value === 'string' ? value : JSON.stringify(value);

/** The indexed columns of `record` in the table map's order, with their values. */
export function recordColumns(collection: Collection, record: object): { names: string[]; values: SqlValue[] } {
  const fields = record as Record<string, unknown>;
  const names: string[] = [];
  const values: SqlValue[] = [];
  for (const [field, name] of tables[collection].columns) {
    names.push(quote(name));
    values.push(columnValue(fields[field]));
  }
  return { names, values };
}
