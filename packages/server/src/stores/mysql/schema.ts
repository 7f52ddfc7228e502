import { storeSchema } from '@svc-licensing/license-engine';
import type { Collection } from '@svc-licensing/license-engine';

/**
 * How a collection maps to a table: the table name, and one column per field the engine
 * queries by (the `indexed`, `unique` and `searchable` fields of `storeSchema`). The whole
 * record lives as JSON text in the `doc` column; the other columns are copies kept in step on
 * every write, so they can carry indexes.
 */
export interface TableMap {
  readonly table: string;
  /** field name → column name, `id` excluded (it is always the `id` column). */
  readonly columns: ReadonlyMap<string, string>;
  /** `KEY` name (as MySQL reports it in a duplicate-key error) → the fields of that unique key. */
  readonly uniqueKeys: ReadonlyMap<string, string>;
}

/** A backquoted identifier (only ever a name from the table maps). */
export const quote = (identifier: string): string => `\`${identifier}\``;

const snake = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Name of the unique key on `fields` of `table`, as the migrations create it. */
export const uniqueKeyName = (table: string, fields: readonly string[]): string =>
  `uq_${table}_${fields.map(snake).join('_')}`;

function tableMap(collection: Collection): TableMap {
  const schema: { indexed: readonly string[]; unique: readonly (readonly string[])[]; searchable?: readonly string[]; ranged?: readonly string[] } =
    storeSchema[collection];
  const table = snake(collection);
  const fields = new Set([...schema.indexed, ...schema.unique.flat(), ...(schema.searchable ?? []), ...(schema.ranged ?? [])]);
  fields.delete('id');
  const uniqueKeys = new Map<string, string>([['PRIMARY', 'id']]);
  for (const key of schema.unique) uniqueKeys.set(uniqueKeyName(table, key), key.join(','));
  return { table, columns: new Map([...fields].map((f) => [f, snake(f)])), uniqueKeys };
}

/** Every collection's table map, derived once from `storeSchema`. */
export const tables: { readonly [C in Collection]: TableMap } = Object.fromEntries(
  (Object.keys(storeSchema) as Collection[]).map((c) => [c, tableMap(c)]),
) as { [C in Collection]: TableMap };
