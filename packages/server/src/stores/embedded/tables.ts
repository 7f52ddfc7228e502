import { storeSchema } from '@svc-licensing/license-engine';
import type { Collection } from '@svc-licensing/license-engine';
import { DueIndex } from './due-index.js';

/** A stored record as the embedded store sees it: a plain JSON object with an `id`. */
export type Row = Record<string, unknown> & { id: string };

/** The top-level fields an update set (their new values) and removed (their names): `row-patch.ts`. */
export interface Patch {
  set: Record<string, unknown>;
  unset: readonly string[];
}

/** One change of a transaction: the record's new image, or null for a delete. */
export interface Change {
  collection: Collection;
  id: string;
  row: Row | null;
  /** An update of a stored row that changed a few of its fields: what the journal writes instead of `row` (`row-patch.ts`). */
  patch?: Patch;
}

const collections = Object.keys(storeSchema) as Collection[];

/** Map key of a unique index entry: the JSON of the key's field values. */
const uniqueKey = (row: Row, fields: readonly string[]): string => JSON.stringify(fields.map((f) => row[f] ?? null));

/** Whether `a` and `b` hold the same values in `fields` (as a unique key compares them). */
const sameKey = (a: Row, b: Row, fields: readonly string[]): boolean => fields.every((f) => (a[f] ?? null) === (b[f] ?? null));

/** Whether `row` counts in the `state` index's pending set. */
const pendingRow = (row: Row): boolean => (row['state'] ?? null) === 'pending';

class Table {
  readonly rows = new Map<string, Row>();
  /** indexed field → value → ids; read through `fieldIndex`, which brings it up to date first. */
  readonly #byField = new Map<string, Map<unknown, Set<string>>>();
  /** unique key name → uniqueKey → id */
  readonly unique = new Map<string, Map<string, string>>();
  /** Notification deliveries only: the pending ones by due time. */
  readonly due: DueIndex<Row> | null = null;
  /**
   * Notification deliveries only: the rows (id → current row) not yet in the field indexes. A
   * delivery is inserted in its change's unit of work, then claimed and recorded by the dispatcher,
   * and its field indexes (account, endpoint, state) are read only by the delivery log, an endpoint's
   * re-enabling, an account's export or purge: its entries are made at the first such read after it
   * was written, in one pass, instead of three set inserts in every unit that queues a notification.
   * Unique keys are kept at once (a write checks them).
   */
  readonly #unindexed: Map<string, Row> | null = null;
  /** How many rows of `#unindexed` are pending (the due index's count of pending rows). */
  #unindexedPending = 0;
  /** Ids written (set or deleted) since the last `Tables.takeChanged`. */
  changed = new Set<string>();

  constructor(readonly collection: Collection) {
    const schema = storeSchema[collection];
    for (const field of schema.indexed) this.#byField.set(field, new Map());
    for (const fields of schema.unique) this.unique.set(fields.join(','), new Map());
    if (collection === 'notificationDeliveries') {
      this.#unindexed = new Map();
      this.due = new DueIndex(
        (id) => this.rows.get(id) ?? null,
        () => [...this.#pendingIds()].map((id) => this.rows.get(id)!),
        () => (this.#byField.get('state')!.get('pending')?.size ?? 0) + this.#unindexedPending,
      );
    }
  }

  #pendingIds(): Set<string> {
    return this.fieldIndex('state')?.get('pending') ?? new Set<string>();
  }

  /** The index of `field` (value → ids), up to date; undefined when the field is not indexed. */
  fieldIndex(field: string): Map<unknown, Set<string>> | undefined {
    const index = this.#byField.get(field);
    if (index !== undefined && this.#unindexed !== null && this.#unindexed.size > 0) {
      for (const row of this.#unindexed.values()) this.#indexFields(row);
      this.#unindexed.clear();
      this.#unindexedPending = 0;
    }
    return index;
  }

  #indexFields(row: Row): void {
    for (const [field, index] of this.#byField) {
      const value = row[field] ?? null;
      let ids = index.get(value);
      if (!ids) index.set(value, (ids = new Set()));
      ids.add(row.id);
    }
  }

  add(row: Row): void {
    this.rows.set(row.id, row);
    if (this.#unindexed !== null) {
      this.#unindexed.set(row.id, row);
      if (pendingRow(row)) this.#unindexedPending++;
    } else this.#indexFields(row);
    for (const fields of storeSchema[this.collection].unique) {
      this.unique.get(fields.join(','))!.set(uniqueKey(row, fields), row.id);
    }
    this.due?.add(row);
  }

  remove(id: string): void {
    const row = this.rows.get(id);
    if (!row) return;
    this.rows.delete(id);
    if (this.#unindexed?.delete(id)) {
      if (pendingRow(row)) this.#unindexedPending--;
    } else {
      for (const [field, index] of this.#byField) {
        const value = row[field] ?? null;
        const ids = index.get(value);
        ids?.delete(id);
        if (ids?.size === 0) index.delete(value);
      }
    }
    for (const fields of storeSchema[this.collection].unique) {
      const index = this.unique.get(fields.join(','))!;
      const key = uniqueKey(row, fields);
      if (index.get(key) === id) index.delete(key);
    }
  }

  /**
   * Replaces the stored `before` with `row` (the same id), moving only the index entries of fields
   * whose value changed: a renewal or a `lastSeenAt` update changes no indexed field, and removing
   * and adding the id back costs more than the rest of the write.
   */
  replace(before: Row, row: Row): void {
    this.rows.set(row.id, row);
    if (this.#unindexed?.has(row.id)) {
      // Not in the field indexes yet: it goes in as it is when they are next read.
      this.#unindexed.set(row.id, row);
      this.#unindexedPending += Number(pendingRow(row)) - Number(pendingRow(before));
    } else {
      for (const [field, index] of this.#byField) {
        const old = before[field] ?? null;
        const value = row[field] ?? null;
        if (old === value) continue;
        const ids = index.get(old);
        ids?.delete(row.id);
        if (ids?.size === 0) index.delete(old);
        let next = index.get(value);
        if (!next) index.set(value, (next = new Set()));
        next.add(row.id);
      }
    }
    for (const fields of storeSchema[this.collection].unique) {
      // A key whose fields did not change already names this id (no encoding of it).
      if (sameKey(before, row, fields)) continue;
      const index = this.unique.get(fields.join(','))!;
      const old = uniqueKey(before, fields);
      if (index.get(old) === row.id) index.delete(old);
      const key = uniqueKey(row, fields);
      if (index.get(key) !== row.id) index.set(key, row.id);
    }
    this.due?.add(row);
  }

  /**
   * The name of the first unique key `row` would break (ignoring the record itself), or null.
   * `before`: the stored record `row` replaces; a key whose fields it shares is its own.
   */
  clash(row: Row, before?: Row | null): string | null {
    for (const fields of storeSchema[this.collection].unique) {
      if (before && sameKey(before, row, fields)) continue;
      const name = fields.join(',');
      const owner = this.unique.get(name)!.get(uniqueKey(row, fields));
      if (owner !== undefined && owner !== row.id) return name;
    }
    return null;
  }
}

/**
 * The working set: every record of every collection in memory, with equality indexes on the
 * schema's indexed fields and unique keys. Records are never mutated in place: a write replaces
 * the stored object, so a reference taken earlier is a stable image of that moment.
 */
export class Tables {
  private readonly tables = new Map<Collection, Table>(collections.map((c) => [c, new Table(c)]));

  table(collection: Collection): Table {
    const table = this.tables.get(collection);
    if (!table) throw new Error(`unknown collection ${JSON.stringify(collection)}`);
    return table;
  }

  get(collection: Collection, id: string): Row | null {
    return this.table(collection).rows.get(id) ?? null;
  }

  /** Sets (row) or deletes (null) a record without any check: loading, replay and undo. */
  put(collection: Collection, id: string, row: Row | null): void {
    const table = this.table(collection);
    table.changed.add(id);
    const before = row ? table.rows.get(id) : undefined;
    if (before !== undefined && row) return table.replace(before, row);
    table.remove(id);
    if (row) table.add(row);
  }

  /**
   * Ids of the records that can match `where`: the one record of a unique key whose every field is
   * named (not null), else the smallest index set among the indexed fields named, or every id when
   * none is indexed. The caller still filters on every field.
   */
  candidates(collection: Collection, where: Record<string, unknown>): Iterable<string> {
    const table = this.table(collection);
    if (typeof where.id === 'string') return table.rows.has(where.id) ? [where.id] : [];
    // Every record is in its unique keys' maps, one id per key (writes refuse a clash), so a key
    // named in full has at most one candidate. A null value is left to the scan below.
    for (const fields of storeSchema[collection].unique) {
      if (!fields.every((f) => where[f] !== undefined && where[f] !== null)) continue;
      const id = table.unique.get(fields.join(','))!.get(uniqueKey(where as Row, fields));
      return id === undefined ? [] : [id];
    }
    let best: Set<string> | null = null;
    for (const field in where) {
      const value = where[field];
      if (value === undefined) continue;
      const index = table.fieldIndex(field);
      if (!index) continue;
      const ids = index.get(value);
      if (!ids) return [];
      if (!best || ids.size < best.size) best = ids;
    }
    return best ?? table.rows.keys();
  }

  /** The `limit` pending notification deliveries due soonest at `now` (by due time, then id). */
  soonestDue(now: number, limit: number): Row[] {
    return this.table('notificationDeliveries').due!.soonest(now, limit);
  }

  /**
   * The ids of every collection written since the previous call (or since creation), and a fresh
   * start: a checkpoint takes them with its image, so it writes again only the parts they fall in.
   */
  takeChanged(): Map<Collection, ReadonlySet<string>> {
    const taken = new Map<Collection, ReadonlySet<string>>();
    for (const [collection, table] of this.tables) {
      taken.set(collection, table.changed);
      table.changed = new Set();
    }
    return taken;
  }

  /** Every collection with its records, for a full checkpoint. */
  *entries(): Iterable<[Collection, Row]> {
    for (const [collection, table] of this.tables) for (const row of table.rows.values()) yield [collection, row];
  }
}
