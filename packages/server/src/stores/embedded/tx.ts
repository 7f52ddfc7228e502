import { StoreConflictError } from '@svc-licensing/license-engine';
import type { ClientLicenseQuery, ClientLicenseRecords, Collection, Page, PageQuery, RecordMap, StoreTx, Where, WriteOptions } from '@svc-licensing/license-engine';
import type { Change, Row, Tables } from './tables.js';
import { copyPlain, sameJson } from './plain.js';
import { rowPatch } from './row-patch.js';

/** A unit of work in progress: writes go straight to the tables and are remembered for undo and the journal. */
export interface OpenTx {
  tx: StoreTx;
  /** The final image of every record written, in first-write order. */
  changes(): Change[];
  /** Puts back every record as it was before the transaction. */
  rollback(): void;
  /** Makes the handle unusable (a `work` that keeps `tx` after it ended gets an error). */
  end(): void;
}

const copy = copyPlain;

const freeze = (value: unknown): void => {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  for (const inner of Object.values(value)) freeze(inner);
  Object.freeze(value);
};
/**
 * What read-only and `sharedReads` units are handed: the stored row itself, deeply frozen at its first such read.
 * Stored rows are never changed in place (a write stores a new row: a copy of the writer's record, or with
 * `owned` the record its writer gave up), so freezing one changes nothing anyone holds, and a renewed row
 * costs no copy and no side table at its next read.
 */
const shared = (row: Row): Row => {
  freeze(row);
  return row;
};
const byId = (a: Row, b: Row): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * `StoreTx.updateIfUnchanged` of the embedded store: units run one at a time, so comparing with the stored row is enough
 * (no comparison when `expected` is the stored row itself, as a shared read handed it out).
 */
async function updateIfSame<C extends Collection>(tables: Tables, tx: StoreTx, collection: C, expected: RecordMap[C], record: RecordMap[C]): Promise<void> {
  const stored = tables.get(collection, (record as { id: string }).id);
  if (stored === null || (stored !== (expected as unknown as Row) && !sameJson(stored, expected))) throw new StoreConflictError(collection, 'unchanged');
  await tx.update(collection, record);
}
function matches(row: Row, where: object): boolean {
  for (const field in where) {
    const value = (where as Record<string, unknown>)[field];
    if (value !== undefined && row[field] !== value) return false;
  }
  return true;
}

function matchesSearch(row: Row, search: { text: string; fields: readonly string[] }): boolean {
  const needle = search.text.toLowerCase();
  return search.fields.some((f) => typeof row[f] === 'string' && (row[f] as string).toLowerCase().includes(needle));
}

/** Cursors are the base64url of the last returned id, like the memory store's: opaque and stable under inserts. */
const encodeCursor = (id: string): string => Buffer.from(id, 'utf8').toString('base64url');
const decodeCursor = (cursor: string): string => Buffer.from(cursor, 'base64url').toString('utf8');

/** The rows of `collection` that match `where`, by id. */
function select(tables: Tables, collection: Collection, where: object): Row[] {
  const rows: Row[] = [];
  for (const id of tables.candidates(collection, where as Record<string, unknown>)) {
    const row = tables.get(collection, id);
    if (row && matches(row, where)) rows.push(row);
  }
  return rows.sort(byId);
}

/**
 * The matching row of `collection` with the smallest id (what `select(...)[0]` is), without
 * collecting and sorting every match: a lookup by a unique key (validate's license, activation and
 * active signing key) has one candidate.
 */
function first(tables: Tables, collection: Collection, where: object): Row | undefined {
  let best: Row | undefined;
  for (const id of tables.candidates(collection, where as Record<string, unknown>)) {
    if (best !== undefined && best.id <= id) continue;
    const row = tables.get(collection, id);
    if (row && matches(row, where)) best = row;
  }
  return best;
}

/** How many rows of `collection` match `where`. */
function countMatches(tables: Tables, collection: Collection, where: object): number {
  let n = 0;
  for (const id of tables.candidates(collection, where as Record<string, unknown>)) {
    const row = tables.get(collection, id);
    if (row && matches(row, where)) n++;
  }
  return n;
}

/** One page of `collection` in id order, and the cursor of the next page (null on the last). */
function pageRows<C extends Collection>(tables: Tables, collection: C, query: PageQuery<C>): { rows: Row[]; nextCursor: string | null } {
  const after = query.cursor ? decodeCursor(query.cursor) : null;
  const desc = query.order === 'desc';
  const before = (a: string, b: string) => (desc ? a > b : a < b); // a comes first in this order
  // Keep only the first limit + 1 matches in order (no sort of every match): lists stay fast on big collections.
  const keep = query.limit + 1;
  const best: Row[] = [];
  // Ids mostly arrive in creation order, so walking from the end for `desc` lets the cheap id
  // test below skip nearly everything once `best` is full. Correct in any order.
  const ids = [...tables.candidates(collection, (query.where ?? {}) as Record<string, unknown>)];
  if (desc) ids.reverse();
  for (const id of ids) {
    if (after !== null && !before(after, id)) continue;
    if (best.length === keep && !before(id, best[keep - 1]!.id)) continue;
    const row = tables.get(collection, id);
    if (!row || !matches(row, query.where ?? {}) || (query.search && !matchesSearch(row, query.search))) continue;
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (before(best[mid]!.id, id)) lo = mid + 1;
      else hi = mid;
    }
    best.splice(lo, 0, row);
    if (best.length > keep) best.pop();
  }
  const data = best.slice(0, query.limit);
  const last = data[data.length - 1];
  const nextCursor = best.length > query.limit && last ? encodeCursor(last.id) : null;
  return { rows: data, nextCursor };
}

/**
 * The client API's reads in one synchronous pass over the indexes (validate's hot path), each row
 * handed out by `out` (a private or a shared frozen copy).
 */
function clientLicense(tables: Tables, out: (row: Row) => Row, q: ClientLicenseQuery): ClientLicenseRecords {
  const one = <C extends Collection>(collection: C, row: Row | null | undefined) => (row ? (out(row) as unknown as RecordMap[C]) : null);
  const product = one('products', tables.get('products', q.productId));
  const signingKey = one('signingKeys', first(tables, 'signingKeys', { productId: q.productId, status: 'active' }));
  const license = one('licenses', first(tables, 'licenses', { keyHash: q.keyHash }));
  if (!license) return { product, license, plan: null, account: null, activation: null, signingKey };
  return {
    product,
    license,
    plan: one('plans', tables.get('plans', license.planId)),
    account: one('accounts', tables.get('accounts', license.accountId)),
    activation: one('activations', first(tables, 'activations', { licenseId: license.id, fingerprint: q.fingerprint })),
    signingKey,
  };
}

/** The final image of every record written (`before`: its image before the unit), with a patch where an update changed a few fields. */
function changesOf(tables: Tables, written: Iterable<{ collection: Collection; id: string; before: Row | null }>): Change[] {
  const changes: Change[] = [];
  for (const { collection, id, before } of written) {
    const row = tables.get(collection, id);
    if (row === before) continue;
    if (row === null || before === null) {
      changes.push({ collection, id, row });
      continue;
    }
    // An update that changed nothing (a validate within the same second) needs no journal line;
    // one that changed a few fields journals them alone.
    const patch = rowPatch(before, row);
    if (patch === undefined) continue;
    changes.push(patch === null ? { collection, id, row } : { collection, id, row, patch });
  }
  return changes;
}

/**
 * Opens a transaction over `tables`. The caller guarantees that no other transaction runs until
 * this one is committed or rolled back (the store's mutex), so reading the shared tables is
 * reading a consistent state that includes this transaction's own writes. `readOnly`: reads
 * return deeply frozen records shared between read-only units, and writes are refused.
 * `sharedReads` (a write unit that never changes what it read, `TransactionOptions.sharedReads`):
 * reads return the same shared frozen records, and writes are allowed (and copied as ever).
 */
export function openTx(tables: Tables, readOnly = false, sharedReads = false): OpenTx {
  /** What a read returns: a private copy, or the row's shared frozen copy (no copy per read). */
  const out = readOnly || sharedReads ? shared : copy;
  const undo: Change[] = [];
  /** Every record written, with its image before the transaction. */
  const written = new Map<string, { collection: Collection; id: string; before: Row | null }>();
  let ended = false;

  const live = () => {
    if (ended) throw new Error('the transaction has ended');
  };
  const writable = () => {
    live();
    if (readOnly) throw new TypeError('embedded store: a write in a read-only unit of work');
  };
  const write = (collection: Collection, id: string, row: Row | null) => {
    const previous = tables.get(collection, id);
    undo.push({ collection, id, row: previous });
    const key = `${collection}\u0000${id}`;
    if (!written.has(key)) written.set(key, { collection, id, before: previous });
    tables.put(collection, id, row);
  };
  const checkUnique = (collection: Collection, row: Row, before?: Row | null) => {
    const clash = tables.table(collection).clash(row, before);
    if (clash) throw new StoreConflictError(collection, clash);
  };

  const readClientLicense = async (q: ClientLicenseQuery): Promise<ClientLicenseRecords> => {
    live();
    return clientLicense(tables, out, q);
  };

  const tx: StoreTx = {
    async get<C extends Collection>(collection: C, id: string) {
      live();
      const row = tables.get(collection, id);
      return row ? (out(row) as unknown as RecordMap[C]) : null;
    },
    async getMany<C extends Collection>(collection: C, ids: readonly string[]) {
      live();
      return ids.map((id) => {
        const row = tables.get(collection, id);
        return row ? (out(row) as unknown as RecordMap[C]) : null;
      });
    },
    async findOne<C extends Collection>(collection: C, where: Where<C>) {
      live();
      const row = first(tables, collection, where);
      return row ? (out(row) as unknown as RecordMap[C]) : null;
    },
    async findMany<C extends Collection>(collection: C, where: Where<C>) {
      live();
      return select(tables, collection, where).map((row) => out(row) as unknown as RecordMap[C]);
    },
    async count<C extends Collection>(collection: C, where: Where<C>) {
      live();
      return countMatches(tables, collection, where);
    },
    async page<C extends Collection>(collection: C, query: PageQuery<C>): Promise<Page<RecordMap[C]>> {
      live();
      const { rows, nextCursor } = pageRows(tables, collection, query);
      return { data: rows.map((row) => out(row) as unknown as RecordMap[C]), nextCursor };
    },
    readClientLicense,
    // Units run one at a time: the license row needs no lock, so the locked read is the same read.
    readClientLicenseLocked: readClientLicense,
    // Units run one at a time: the due deliveries need no lock; the due-time index hands out the soonest.
    async dueDeliveries({ now, limit }) {
      live();
      const due = limit > 0 ? tables.soonestDue(now, limit) : [];
      return due.map((row) => out(row) as unknown as RecordMap['notificationDeliveries']);
    },
    async insert<C extends Collection>(collection: C, record: RecordMap[C], options?: WriteOptions) {
      writable();
      // A record the caller hands over (`owned`) is kept as it is: nothing else holds it.
      const row = (options?.owned === true ? record : copy(record)) as unknown as Row;
      if (tables.get(collection, row.id)) throw new StoreConflictError(collection, 'id');
      checkUnique(collection, row);
      write(collection, row.id, row);
    },
    async update<C extends Collection>(collection: C, record: RecordMap[C]) {
      writable();
      const row = copy(record) as unknown as Row;
      const before = tables.get(collection, row.id);
      if (!before) throw new Error(`no ${collection} record ${row.id} to update`);
      checkUnique(collection, row, before);
      write(collection, row.id, row);
    },
    updateIfUnchanged: (collection, expected, record) => updateIfSame(tables, tx, collection, expected, record),
    async delete<C extends Collection>(collection: C, id: string) {
      writable();
      if (tables.get(collection, id)) write(collection, id, null);
    },
  };

  return {
    tx,
    changes: () => changesOf(tables, written.values()),
    rollback() {
      for (let i = undo.length - 1; i >= 0; i--) {
        const { collection, id, row } = undo[i]!;
        tables.put(collection, id, row);
      }
      undo.length = 0;
      written.clear();
    },
    end() {
      ended = true;
    },
  };
}
