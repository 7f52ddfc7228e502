import { StoreConflictError } from '@svc-licensing/license-engine';
import type { Collection } from '@svc-licensing/license-engine';
import type { ResultSetHeader } from 'mysql2/promise';
import { joinHeld } from './held-merge.js';
import type { Joinable } from './held-merge.js';
import type { SqlValue } from './statement.js';

const ER_SIGNAL_EXCEPTION = 1644;

/**
 * The savepoint a unit of work on Galera sets in its transaction's first query, and releases just
 * before its COMMIT in the same query as the held writes. A write set applied from another node
 * can abort the transaction (brute-force abort) between two statements of a multi-statement
 * query; MariaDB then answers the query with a deadlock but runs its remaining statements in a new
 * transaction, COMMIT included, so the tail of the unit's writes would commit without the rest.
 * That new transaction has no such savepoint: its RELEASE fails the query before the COMMIT, and
 * the unit's ROLLBACK discards the tail.
 */
export const SAVEPOINT = 'SAVEPOINT `svc_unit`';
const RELEASE_SAVEPOINT = 'RELEASE SAVEPOINT `svc_unit`';
const UNMATCHED = 'svc: held update matched no row #';

/**
 * MariaDB's anonymous block after a held UPDATE: fails the batch (and so skips its COMMIT) when
 * the update matched no row (`ROW_COUNT()` counts matched rows: the driver sets CLIENT_FOUND_ROWS).
 */
const unmatchedGuard = (index: number) =>
  `BEGIN NOT ATOMIC IF ROW_COUNT() = 0 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '${UNMATCHED}${index}'; END IF; END`;

/**
 * A write held for later (`{ defer: true }`): sent with the unit's next statement or its COMMIT.
 * `collection` names the clash of a duplicate key; `mustMatch` makes a write that matched no row
 * (an update of a missing record) fail the unit, with a `StoreConflictError` on index `unchanged`
 * when `unchanged` (a compare and set that found the record changed: `updateIfUnchanged`).
 */
export interface HeldWrite {
  sql: string;
  values: readonly SqlValue[];
  collection: Collection;
  mustMatch?: string;
  unchanged?: true;
  /** Set on a one-row insert or delete by id that may go in one statement with others (held-merge.ts). */
  joinable?: Joinable;
  /**
   * Sent after the batch's other writes (in the order held among such writes): a write of a hot
   * row that no foreign key points at takes its lock as late as the unit allows.
   */
  last?: true;
}

/** `writes` with those marked `last` moved to the end, each group in the order held. */
const lastOnes = (writes: readonly HeldWrite[]): HeldWrite[] =>
  writes.some((w) => w.last) ? [...writes.filter((w) => !w.last), ...writes.filter((w) => w.last)] : [...writes];

/** The failure of a held write that matched no row: its `mustMatch` message, or the compare and set's conflict. */
const unmatchedFailure = (w: HeldWrite): Error => (w.unchanged ? new StoreConflictError(w.collection, 'unchanged') : new Error(w.mustMatch ?? ''));

/** A statement of its own, asked for by `work`, that goes in a held batch's query. */
export interface Statement {
  readonly sql: string;
  readonly values: readonly SqlValue[];
}

/**
 * One query that sends held writes: the writes in the order held, those marked `last` at the end
 * (a few joined in one statement, {@link joinHeld}), then COMMIT (`commit`), or the `reads` whose results the caller needs (not
 * `commit`). A held update that must match its row is checked before anything commits: `guarded`
 * (MariaDB) puts a guard block after each such update, which fails the query before its COMMIT;
 * otherwise the COMMIT is left out (`commitAfterCheck`) for the caller to send once it has checked
 * the matched rows ({@link firstUnmatched}).
 */
export class HeldBatch {
  readonly sql: string;
  readonly values: SqlValue[];
  /** The COMMIT is not in the query: send it after {@link firstUnmatched} found nothing. */
  readonly commitAfterCheck: boolean;
  /** The query ends with its COMMIT: if the connection breaks, whether it committed is unknown. */
  readonly commits: boolean;
  readonly #writes: readonly HeldWrite[];
  readonly #guarded: boolean;
  readonly #count: number;
  readonly #reads: number;
  /** The query starts with the unit's savepoint (its result is not one of the writes'). */
  readonly #opens: boolean;

  constructor(
    writes: readonly HeldWrite[],
    commit: boolean,
    guardBlocks: boolean,
    reads: readonly Statement[],
    savepoint: { open: boolean; release: boolean } = { open: false, release: false },
  ) {
    writes = joinHeld(lastOnes(writes));
    this.#writes = writes;
    this.#guarded = commit && guardBlocks;
    this.commitAfterCheck = commit && !this.#guarded && writes.some((w) => w.mustMatch);
    this.commits = commit && !this.commitAfterCheck;
    this.#opens = savepoint.open;
    const statements = writes.map((w, i) => (this.#guarded && w.mustMatch ? `${w.sql};\n${unmatchedGuard(i)}` : w.sql));
    if (savepoint.open) statements.unshift(SAVEPOINT);
    if (this.commits && savepoint.release) statements.push(RELEASE_SAVEPOINT);
    if (this.commits) statements.push('COMMIT');
    for (const r of reads) statements.push(r.sql);
    this.sql = statements.join(';\n');
    this.values = [...writes.flatMap((w) => w.values), ...reads.flatMap((r) => r.values)];
    this.#count = statements.length;
    this.#reads = reads.length;
  }

  /** The query's answer as one result per statement (the driver answers a lone statement without a list). */
  results(answer: unknown): unknown[] {
    const all = this.#count === 1 ? [answer] : (answer as unknown[]);
    return this.#opens ? all.slice(1) : all;
  }

  /** The results of the reads, in the order asked. */
  readResults(results: readonly unknown[]): unknown[] {
    return results.slice(results.length - this.#reads);
  }

  /** Without guard blocks: the message of the first held update that matched no row, else null. */
  firstUnmatched(results: readonly unknown[]): Error | null {
    if (this.#guarded) return null;
    const unmatched = this.#writes.find((w, i) => w.mustMatch && (results[i] as ResultSetHeader | undefined)?.affectedRows === 0);
    return unmatched ? unmatchedFailure(unmatched) : null;
  }

  /** With guard blocks: the message of the held update whose guard failed the query, or null for any other error. */
  unmatchedBy(error: unknown): Error | null {
    const { errno, sqlMessage } = error as { errno?: number; sqlMessage?: string };
    if (errno !== ER_SIGNAL_EXCEPTION || !sqlMessage?.startsWith(UNMATCHED)) return null;
    // A guard follows only an update with `mustMatch`.
    return unmatchedFailure(this.#writes[Number(sqlMessage.slice(UNMATCHED.length))]!);
  }

  /** The collections written, to name the clash of a duplicate key. */
  collections(): Collection[] {
    return this.#writes.map((w) => w.collection);
  }
}
