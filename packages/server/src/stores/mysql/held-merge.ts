import type { Collection } from '@svc-licensing/license-engine';
import { migrations } from './migrations.js';
import { tables } from './schema.js';
import type { SqlValue } from './statement.js';

/**
 * Each table's parents: the tables its foreign keys reference, read off the migrations' `CREATE
 * TABLE` statements (the only place the schema declares foreign keys).
 */
export const foreignKeyParents: ReadonlyMap<string, ReadonlySet<string>> = (() => {
  const parents = new Map<string, Set<string>>();
  for (const statement of migrations.flatMap((m) => m.statements)) {
    const created = /^CREATE TABLE IF NOT EXISTS `(\w+)`/.exec(statement);
    if (!created) continue;
    const referenced = [...statement.matchAll(/REFERENCES `(\w+)`/g)].map((m) => m[1]!);
    parents.set(created[1]!, new Set(referenced));
  }
  return parents;
})();

/** A held write as joinHeld sees it (held.ts's `HeldWrite`, which this module does not import: no cycle). */
export interface JoinableWrite {
  readonly sql: string;
  readonly values: readonly SqlValue[];
  readonly collection: Collection;
  readonly mustMatch?: string;
  readonly joinable?: Joinable;
}

/** How a held write may be joined with others of its table (set by the store's `insert` and `delete`). */
export type Joinable =
  /** An INSERT of one row: `sql` is `${head} VALUES ${tuple}`. */
  | { readonly kind: 'insert'; readonly head: string }
  /** A DELETE by id: `sql` is `${head} = ?`, its one value the id. */
  | { readonly kind: 'delete'; readonly head: string };

/** A held write being joined: its row tuples (inserts) or ids (deletes), and their values. */
interface Joined {
  readonly write: JoinableWrite;
  readonly parts: string[];
  readonly values: SqlValue[];
}

/**
 * The held writes of one batch with fewer statements, the same rows written (each statement
 * MariaDB parses and plans costs it about as much as the row it writes):
 *
 * - An insert joins an earlier held insert of the same table as one multi-row INSERT when nothing
 *   held between them writes that table or a table it references (a parent row it may need is
 *   then already written where it joins). An INSERT of new rows waits on no lock but a clash of a
 *   unique key, which fails the unit wherever it happens.
 * - Consecutive deletes by id of the same table go as one `DELETE ... WHERE id IN (...)`.
 *
 * Updates are never joined (each keeps its own guard, rule 6 of unit-of-work.ts). A batch's writes
 * answer nothing to `work`, so only their order and rows matter.
 */
export function joinHeld(writes: readonly JoinableWrite[]): JoinableWrite[] {
  if (writes.length < 2) return [...writes];
  const out: (JoinableWrite | Joined)[] = [];
  for (const w of writes) {
    const target = w.joinable ? joinTarget(out, w) : null;
    if (target === null) {
      out.push(w.joinable ? { write: w, parts: [partOf(w)], values: [...w.values] } : w);
      continue;
    }
    target.parts.push(partOf(w));
    target.values.push(...w.values);
  }
  return out.map((o) => ('parts' in o ? statementOf(o) : o));
}

function partOf(w: JoinableWrite): string {
  return w.joinable!.kind === 'insert' ? w.sql.slice(w.joinable!.head.length + ' VALUES '.length) : '?';
}

function statementOf(j: Joined): JoinableWrite {
  const { write, parts, values } = j;
  if (parts.length === 1) return write;
  const { kind, head } = write.joinable!;
  const sql = kind === 'insert' ? `${head} VALUES ${parts.join(', ')}` : `${head} IN (${parts.join(', ')})`;
  return { sql, values, collection: write.collection };
}

/** The earlier held write `w` may join, or null (the rules on {@link joinHeld}). */
function joinTarget(out: readonly (JoinableWrite | Joined)[], w: JoinableWrite): Joined | null {
  const { kind, head } = w.joinable!;
  if (kind === 'delete') {
    const last = out[out.length - 1];
    return last && 'parts' in last && last.write.joinable!.kind === 'delete' && last.write.joinable!.head === head ? last : null;
  }
  const parents = foreignKeyParents.get(tables[w.collection].table) ?? new Set<string>();
  for (let i = out.length - 1; i >= 0; i--) {
    const o = out[i]!;
    const earlier = 'parts' in o ? o.write : o;
    if ('parts' in o && earlier.joinable!.kind === 'insert' && earlier.joinable!.head === head) return o;
    if (earlier.collection === w.collection || parents.has(tables[earlier.collection as Collection].table)) return null;
  }
  return null;
}
