import type { Collection, RecordMap } from '../_internal/records.js';
import type { Page, PageQuery, Store, StoreTx, TransactionOptions, Where } from '../_internal/store.js';
import { StoreConflictError, storeSchema } from '../_internal/store.js';
import { decodeCursor, encodeCursor, matchesSearch, matchesWhere } from '../_internal/store-query.js';
import { readClientRecords } from '../_internal/client-records.js';

type Row = Record<string, unknown> & { id: string };

/** Committed records of one collection, with an equality index per indexed or unique field. */
interface Table {
  rows: Map<string, Row>;
  index: Map<string, Map<unknown, Set<string>>>;
}

function createTable(collection: Collection): Table {
  const schema = storeSchema[collection];
  const fields = new Set<string>([...schema.indexed, ...schema.unique.flat()]);
  return { rows: new Map(), index: new Map([...fields].map((f) => [f, new Map()])) };
}

function indexRow(table: Table, row: Row, add: boolean): void {
  for (const [field, byValue] of table.index) {
    const value = row[field];
    let ids = byValue.get(value);
    if (add) {
      if (!ids) byValue.set(value, (ids = new Set()));
      ids.add(row.id);
    } else if (ids) {
      ids.delete(row.id);
      if (ids.size === 0) byValue.delete(value);
    }
  }
}

/**
 * Creates an in-memory store: the reference adapter of the store port, for tests and for
 * single-process embedding without persistence.
 *
 * Transactions run one at a time (a mutex), so every transaction sees a consistent state and
 * locks are no-ops. Records are copied in and out (no aliasing with the caller's objects), and
 * a transaction that throws leaves the store exactly as it was. `readOnly` units run like any
 * other (the option is accepted and ignored); a `sharedReads` unit gets its copies deeply frozen,
 * so engine code that changes a record it promised not to change fails its tests. A transaction must not start
 * another transaction on the same store (it would wait for itself).
 *
 * @example
 * ```ts
 * const store = createMemoryStore();
 * await store.transaction(async (tx) => tx.insert('counters', { id: 'c1', accountId: 'acc_1', count: 1, expiresAt: '2030-01-01T00:00:00Z' }));
 * const counter = await store.transaction((tx) => tx.get('counters', 'c1'));
 * ```
 */
export function createMemoryStore(): Store {
  const tables = new Map<Collection, Table>();
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;

  const table = (collection: Collection): Table => {
    let rows = tables.get(collection);
    if (!rows) {
      rows = createTable(collection);
      tables.set(collection, rows);
    }
    return rows;
  };

  async function run<T>(work: (tx: StoreTx) => Promise<T>, options?: TransactionOptions): Promise<T> {
    if (closed) throw new Error('store is closed');
    // Writes go to an overlay (null = deleted) and reach the tables only on success.
    const overlay = new Map<Collection, Map<string, Row | null>>();
    const tx = createTx(table, overlay, options?.sharedReads === true);
    const result = await work(tx);
    for (const [collection, writes] of overlay) {
      const committed = table(collection);
      for (const [id, row] of writes) {
        const old = committed.rows.get(id);
        if (old) indexRow(committed, old, false);
        if (row === null) committed.rows.delete(id);
        else {
          committed.rows.set(id, row);
          indexRow(committed, row, true);
        }
      }
    }
    return result;
  }

  return {
    transaction<T>(work: (tx: StoreTx) => Promise<T>, options?: TransactionOptions): Promise<T> {
      const next = queue.then(() => run(work, options));
      queue = next.catch(() => undefined);
      return next;
    },
    async close() {
      closed = true;
      await queue;
    },
  };
}

/** Freezes `value` and everything in it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

function createTx(table: (c: Collection) => Table, overlay: Map<Collection, Map<string, Row | null>>, frozenReads = false): StoreTx {
  const writes = (collection: Collection): Map<string, Row | null> => {
    let w = overlay.get(collection);
    if (!w) {
      w = new Map();
      overlay.set(collection, w);
    }
    return w;
  };

  /** Records matching `where` as this transaction sees them, oldest first; narrowed by an index when it can. */
  const visible = (collection: Collection, where: object = {}): Row[] => {
    const committed = table(collection);
    const w = overlay.get(collection);
    // The most selective index among the filtered fields narrows the scan.
    let best: Set<string> | null = null;
    for (const [field, value] of Object.entries(where)) {
      const byValue = value === undefined ? undefined : committed.index.get(field);
      if (!byValue) continue;
      const ids = byValue.get(value) ?? new Set<string>();
      if (best === null || ids.size < best.size) best = ids;
    }
    const candidates: Iterable<Row> = best === null ? committed.rows.values() : [...best].map((id) => committed.rows.get(id)!);
    const rows: Row[] = [];
    for (const row of candidates) if (!w?.has(row.id) && matchesWhere(row, where)) rows.push(row);
    if (w) for (const row of w.values()) if (row !== null && matchesWhere(row, where)) rows.push(row);
    return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  };

  const read = (collection: Collection, id: string): Row | null => {
    const w = overlay.get(collection);
    if (w?.has(id)) return w.get(id) ?? null;
    return table(collection).rows.get(id) ?? null;
  };

  const checkUnique = (collection: Collection, row: Row) => {
    for (const key of storeSchema[collection].unique) {
      const where = Object.fromEntries(key.map((f) => [f, row[f]]));
      if (visible(collection, where).some((other) => other.id !== row.id)) throw new StoreConflictError(collection, key.join(','));
    }
  };

  const copy = <T>(value: T): T => structuredClone(value);
  // A `sharedReads` unit promised not to change what it reads: its copies are frozen, so a change throws here too.
  const out = <T>(value: T): T => (frozenReads ? deepFreeze(copy(value)) : copy(value));

  const tx: StoreTx = {
    async get<C extends Collection>(collection: C, id: string) {
      const row = read(collection, id);
      return row ? (out(row) as unknown as RecordMap[C]) : null;
    },
    async getMany<C extends Collection>(collection: C, ids: readonly string[]) {
      return ids.map((id) => {
        const row = read(collection, id);
        return row ? (out(row) as unknown as RecordMap[C]) : null;
      });
    },
    async findOne<C extends Collection>(collection: C, where: Where<C>) {
      const row = visible(collection, where)[0];
      return row ? (out(row) as unknown as RecordMap[C]) : null;
    },
    async findMany<C extends Collection>(collection: C, where: Where<C>) {
      return visible(collection, where).map((r) => out(r) as unknown as RecordMap[C]);
    },
    async count<C extends Collection>(collection: C, where: Where<C>) {
      return visible(collection, where).length;
    },
    async page<C extends Collection>(collection: C, query: PageQuery<C>): Promise<Page<RecordMap[C]>> {
      const after = query.cursor ? decodeCursor(query.cursor) : null;
      let rows = visible(collection, query.where ?? {}).filter((r) => !query.search || matchesSearch(r, query.search));
      if (query.order === 'desc') rows.reverse();
      if (after !== null) rows = rows.filter((r) => (query.order === 'desc' ? r.id < after : r.id > after));
      const data = rows.slice(0, query.limit);
      const last = data[data.length - 1];
      const nextCursor = rows.length > query.limit && last ? encodeCursor(last.id) : null;
      return { data: data.map((r) => out(r) as unknown as RecordMap[C]), nextCursor };
    },
    async insert<C extends Collection>(collection: C, record: RecordMap[C]) {
      const row = copy(record) as unknown as Row;
      if (read(collection, row.id)) throw new StoreConflictError(collection, 'id');
      checkUnique(collection, row);
      writes(collection).set(row.id, row);
    },
    async update<C extends Collection>(collection: C, record: RecordMap[C]) {
      const row = copy(record) as unknown as Row;
      if (!read(collection, row.id)) throw new Error(`no ${collection} record ${row.id} to update`);
      checkUnique(collection, row);
      writes(collection).set(row.id, row);
    },
    async updateIfUnchanged<C extends Collection>(collection: C, expected: RecordMap[C], record: RecordMap[C]) {
      const stored = read(collection, (record as { id: string }).id);
      if (!stored || JSON.stringify(stored) !== JSON.stringify(expected)) throw new StoreConflictError(collection, 'unchanged');
      await tx.update(collection, record);
    },
    async delete<C extends Collection>(collection: C, id: string) {
      if (read(collection, id)) writes(collection).set(id, null);
    },
    readClientLicense: (query) => readClientRecords(tx, query),
    // Units run one at a time here: the due deliveries need no lock.
    async dueDeliveries({ now, limit }) {
      const due = visible('notificationDeliveries', { state: 'pending' }).filter((r) => typeof r.dueAt === 'number' && r.dueAt <= now);
      due.sort((a, b) => (a.dueAt as number) - (b.dueAt as number) || (a.id < b.id ? -1 : 1));
      return due.slice(0, Math.max(0, limit)).map((r) => out(r) as unknown as RecordMap['notificationDeliveries']);
    },
  };
  return tx;
}
