import type { PoolConnection } from 'mysql2';
import type { ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import type { Circuit } from './circuit.js';
import { isServerError } from './errors.js';

/**
 * Runs one statement with `?` placeholders on the transaction's connection; `unionable`: it is a
 * one-row read that may go in one statement with others of its query (read-unions.ts).
 */
export type Run = <T extends RowDataPacket[] | ResultSetHeader>(sql: string, values: readonly SqlValue[], unionable?: UnionableRead) => Promise<T>;

/**
 * A read without a lock that may go in one statement with others of its query (rule 12 of
 * unit-of-work.ts, read-unions.ts): `select` is what follows `SELECT` in a `UNION ALL` part, the
 * row's `doc`, `rvl_seq` and `rvl_at` (NULL where the table has no list position) through its
 * conditions, `ORDER BY` and `LIMIT`, with the statement's own placeholders. A part keeps its rows'
 * order only with a `LIMIT` (MariaDB drops the `ORDER BY` of a part without one), so a read of
 * many rows has the largest `LIMIT` there is ({@link NO_LIMIT}).
 */
export interface UnionableRead {
  readonly select: string;
  /**
   * A read by primary key (at most one row): `select` has its conditions only, no `ORDER BY` or
   * `LIMIT`, and the part goes without parentheses, which MariaDB parses and plans for less.
   */
  readonly bare?: true;
}

/** The `LIMIT` of a `UNION ALL` part that reads every row it finds, in its `ORDER BY`'s order. */
export const NO_LIMIT = ' LIMIT 18446744073709551615';

/** What a placeholder binds: column values are strings or NULL; numbers only in raw units. */
export type SqlValue = string | number | null;

/** What watches a statement: the circuit that aborts it when the database is found down, and when to suspect it. */
export interface Watch {
  readonly circuit: Circuit;
  /** A statement without an answer for this long makes the circuit probe the database. */
  readonly probeAfterMs: number;
}

/** How a unit of work runs: read-only or not, its statement timeout and watch, and whether guard blocks are available. */
export interface UnitSettings {
  readonly readOnly: boolean;
  readonly queryTimeout: number;
  readonly watch: Watch;
  /** The server runs MariaDB's anonymous blocks (rule 6 of unit-of-work.ts). */
  readonly guardBlocks: boolean;
  /** The server is a Galera node: the transaction carries a savepoint to its COMMIT (rule 11 of unit-of-work.ts). */
  readonly galera: boolean;
}

/**
 * One statement on the driver's callback API. The promise wrapper captures a stack trace for
 * every statement, a tenth of a server's CPU under load; errors here carry the driver's fields
 * (`errno`, `sqlState`, `fatal`) all the same. `execute` sends a prepared statement, `query` a
 * text one (several statements joined by `;` when the pool allows multiple statements). With a
 * `watch`, the statement starts a probe when it is slow and fails with `store_timeout` (its
 * connection dropped) when the probe finds the database down.
 */
export function direct<R extends RowDataPacket[] | ResultSetHeader>(
  connection: PoolConnection,
  method: 'execute' | 'query',
  sql: string,
  values: readonly SqlValue[],
  timeout: number,
  watch?: Watch,
): Promise<R> {
  return new Promise<R>((resolve, reject) => {
    let done = false;
    let untrack: (() => void) | null = null;
    let watchdog: ReturnType<typeof setTimeout> | null = null;
    const callback = (error: unknown, rows: unknown) => {
      if (done) return;
      done = true;
      untrack?.();
      if (watchdog) clearTimeout(watchdog);
      if (watch && (!error || isServerError(error))) watch.circuit.answered();
      if (error) reject(error);
      else resolve(rows as R);
    };
    if (watch) {
      // The circuit aborts the statement when the database is found down (the connection is dropped).
      untrack = watch.circuit.track((error) => {
        callback(error, null);
        connection.destroy();
      });
      watchdog = setTimeout(() => watch.circuit.suspect(), watch.probeAfterMs);
      watchdog.unref?.();
    }
    if (method === 'execute') connection.execute({ sql, values: [...values], timeout }, callback);
    else connection.query({ sql, values: [...values], timeout }, callback);
  });
}
