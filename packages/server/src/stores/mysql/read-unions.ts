import type { SqlValue, UnionableRead } from './statement.js';

/** A statement of a query, a read that may be joined marked with its part. */
export interface QueryStatement {
  readonly sql: string;
  readonly values: readonly SqlValue[];
  readonly unionable?: UnionableRead;
}

/** A row of the joined read: its part's number, then the part's columns. */
interface UnionRow {
  n: number | string;
}

/**
 * `statements` with their unlocked reads joined in one `UNION ALL` statement when there are two or
 * more (in the first one's place, each part numbered in the order asked), and how to give every
 * statement asked its own answer back. MariaDB parses and plans one statement instead of several
 * (each statement of a query costs it about as much as a by-id row it reads), and each part keeps
 * its own conditions, order and limit, so it finds the rows its own statement would: a part that
 * finds nothing answers its statement with no row. MariaDB sends a `UNION ALL` part by part as
 * each part runs (no temporary table, nothing sorted but within a part), so a part's rows come in
 * its own order: a read of many rows gets them as its statement alone would (`NO_LIMIT`).
 */
export function unionReads<S extends QueryStatement>(statements: readonly S[]): { sent: QueryStatement[]; answers(results: readonly unknown[]): unknown[] } {
  const parts = statements.filter((s) => s.unionable);
  if (parts.length < 2) return { sent: [...statements], answers: (results) => [...results] };
  const union: QueryStatement = {
    sql: parts.map((s, n) => (s.unionable!.bare ? `SELECT ${n} AS \`n\`, ${s.unionable!.select}` : `(SELECT ${n} AS \`n\`, ${s.unionable!.select})`)).join(' UNION ALL '),
    values: parts.flatMap((s) => s.values),
  };
  const at = statements.indexOf(parts[0]!);
  const sent = [...statements.slice(0, at), union, ...statements.slice(at).filter((s) => !s.unionable)];
  return {
    sent,
    answers(results) {
      const rows = results[at] as UnionRow[];
      const byPart = parts.map(() => [] as UnionRow[]);
      for (const row of rows) byPart[Number(row.n)]!.push(row);
      const rest = [...results.slice(0, at), ...results.slice(at + 1)];
      let next = 0;
      return statements.map((s, i) => (s.unionable ? byPart[parts.indexOf(s)] : i < at ? rest[i] : rest[at + next++]));
    },
  };
}
