// One attempt at a unit of work: one database transaction on one pooled connection. Every round
// trip costs the single-threaded server about 100 µs of CPU, so statements are batched by these
// rules, and by nothing else (test/stores/mysql-round-trips.test.ts reads them off the wire):
//
// 1. A turn: statements asked for in the same turn of the event loop (`Promise.all`) are sent
//    together once the turn ends (a microtask later); a turn starts with the first of them.
// 2. Queries of a turn: in the order asked, each write starts a query of its own and the reads
//    asked after it join that query. A lone statement stays a prepared one (`execute`); two or
//    more go as one multi-statement text query.
// 3. Reads before a write: in a query that starts with a write (an insert-first claim asked for
//    with the reads it goes with), the reads run first and the write last, so they do not see
//    it. A Galera node waits for the cluster's earlier commits (`wsrep_sync_wait`) only before a
//    statement that opens a transaction, never after a write opened it.
// 4. A claim's clash: when that write fails with a duplicate key, only the write fails; its
//    reads are asked again on their own.
// 5. Held writes (`{ defer: true }`) wait for the next query: reads join the held writes' query
//    after them; a query that starts with a write goes after the held writes went alone (the
//    write's clash must stay its own answer). With no next query they go with the COMMIT, in
//    one query.
// 6. An update must match its row (ROW_COUNT guards): before the COMMIT, on MariaDB, through a
//    guard block after each held update that must match, which fails the query before its
//    COMMIT; elsewhere the held writes go without the COMMIT, their matched rows are checked, and
//    the COMMIT follows alone. A held write that failed fails the unit. Held one-row inserts and
//    deletes of a table join in one statement where held-merge.ts allows.
// 7. The end waits for every statement: COMMIT or ROLLBACK goes only after every statement the
//    unit asked for has its answer (one `work` did not await included).
// 8. A failure dooms the attempt: after a deadlock or lock-wait timeout, a broken connection or
//    a failed held batch, nothing more is sent, and the unit fails with that error even if `work`
//    swallowed it. Other answers of the server (a duplicate key) are `work`'s to handle.
// 9. Read-only units run on autocommitted sessions: their SELECTs need no COMMIT or ROLLBACK,
//    and a write is refused before it is sent. Each of their queries takes a read pool connection
//    and returns it with the answer: a read-only unit holds none while it waits for anything else.
// 10. A unit of work takes its pooled connection with its first query: a unit that sends nothing
//    takes none, and sends no COMMIT.
// 11. On Galera, a unit that is not read-only sets a savepoint with its first multi-statement query
//    (at its end, or at the start of a held batch) and releases it just before its COMMIT: a
//    transaction another node aborted during a batch cannot commit the batch's rest (held.ts).
// 12. Unlocked reads of a query join: two or more reads without a lock (`get`, `findOne`,
//    `findMany`, a provider customer's two reads) go as one `UNION ALL` statement in the first
//    one's place, each part with its own order and limit (read-unions.ts).
import type { PoolConnection } from 'mysql2';
import type { ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import type { Acquired } from './connection.js';
import { MySqlStoreError, connectionFailure, isDuplicateKey, isRetryable, isServerError } from './errors.js';
import { HeldBatch, SAVEPOINT } from './held.js';
import type { HeldWrite } from './held.js';
import { unionReads } from './read-unions.js';
import type { QueryStatement } from './read-unions.js';
import type { Run, SqlValue, UnionableRead, UnitSettings } from './statement.js';
import { direct } from './statement.js';
import { conflictOf } from './tx.js';

/** A statement asked for in the current turn, with its caller's promise. */
interface Queued extends QueryStatement {
  readonly write: boolean;
  readonly resolve: (result: never) => void;
  readonly reject: (error: unknown) => void;
}

/** The work of a unit: statements through `run`, writes held for later through `hold`. */
export type UnitWork<T> = (run: Run, hold: (write: HeldWrite) => void) => Promise<T>;

/** One attempt at a unit of work, by the rules above. Use once: {@link UnitOfWork.complete}. */
export class UnitOfWork {
  readonly #acquire: () => Promise<Acquired>;
  /** The connection of a unit that is not read-only, once its first query took it (rule 10). */
  #connection: PoolConnection | null = null;
  #taking: Promise<PoolConnection> | null = null;
  /** The connection of the last query had served before. */
  #reused = false;
  readonly #settings: UnitSettings;
  /** Why nothing more may run (rule 8). */
  #doomed: unknown = null;
  /** The connection broke: it is dropped, not returned to the pool. */
  #broken = false;
  /** The connection broke during a COMMIT: the unit may have committed, so it must not run again. */
  #uncertain = false;
  /** See {@link UnitOfWork.stale}. */
  #stale = false;
  /** The savepoint of rule 11 is set in this attempt's transaction. */
  #savepoint = false;
  /** Writes held by `{ defer: true }` (rule 5). */
  #held: HeldWrite[] = [];
  /** The statements of the turn not sent yet (rule 1). */
  #turn: Queued[] = [];
  /** The turns not finished yet (rule 7). */
  readonly #turns = new Set<Promise<void>>();

  /** `acquire`: takes a connection of the unit's pool, its session set up. */
  constructor(acquire: () => Promise<Acquired>, settings: UnitSettings) {
    this.#acquire = acquire;
    this.#settings = settings;
  }

  /** The attempt failed only because the server had closed its pooled connection meanwhile (a restart, an idle kill): it may run again. */
  get stale(): boolean {
    return this.#stale;
  }

  /**
   * Runs `work`, then commits (a read-only unit has nothing to commit), or rolls back and rejects
   * with the failure; the connection goes back to the pool, or is dropped if it broke.
   */
  async complete<T>(work: UnitWork<T>): Promise<T> {
    try {
      const result = await work(this.run, this.hold);
      await this.#settled();
      if (this.#doomed) throw this.#doomed;
      if (this.#settings.readOnly) return result;
      if (this.#held.length) await this.#sendHeld(true);
      else if (this.#connection) await this.#control('COMMIT');
      return result;
    } catch (error) {
      await this.#settled();
      if (!this.#broken && this.#connection) await this.#control('ROLLBACK').catch(() => (this.#broken = true));
      const failure = this.#doomed ?? error;
      const lost = MySqlStoreError.is(failure) && failure.code === 'store_unavailable' && !this.#uncertain;
      this.#stale = this.#broken && this.#reused && lost;
      throw failure;
    } finally {
      if (this.#broken) this.#connection?.destroy();
      else this.#connection?.release();
    }
  }

  /** Asks for one statement; it is sent with the others of its turn (rules 1 to 4). */
  readonly run: Run = async <R extends RowDataPacket[] | ResultSetHeader>(sql: string, values: readonly SqlValue[], unionable?: UnionableRead): Promise<R> => {
    if (this.#doomed) throw this.#doomed;
    const write = !/^\s*SELECT\b/i.test(sql);
    if (this.#settings.readOnly && write) throw new TypeError('mysql store: a write in a read-only unit of work');
    return new Promise<R>((resolve, reject) => {
      if (this.#turn.length === 0) {
        const sent: Promise<void> = new Promise<void>((done) => queueMicrotask(() => void this.#sendTurn().finally(done))).then(
          () => void this.#turns.delete(sent),
        );
        this.#turns.add(sent);
      }
      this.#turn.push({ sql, values, write, resolve: resolve as (result: never) => void, reject, ...(unionable && !write ? { unionable } : {}) });
    });
  };

  /** Holds a write for the next query or the COMMIT (rule 5). */
  readonly hold = (write: HeldWrite): void => {
    if (this.#doomed) throw this.#doomed;
    this.#held.push(write);
  };

  /** Sends the statements of the turn that ended, one query after the other (rule 2). */
  async #sendTurn(): Promise<void> {
    const queued = this.#turn;
    this.#turn = [];
    let batch: Queued[] = [];
    for (const q of queued) {
      if (q.write && batch.length) {
        await this.#sendBatch(batch);
        batch = [];
      }
      batch.push(q);
    }
    await this.#sendBatch(batch);
  }

  /** Sends one query of a turn: at most one write, first, and the reads asked after it (rules 2 to 5). */
  async #sendBatch(batch: Queued[]): Promise<void> {
    try {
      if (this.#held.length && !batch[0]!.write) {
        const reads = unionReads(batch); // rule 12
        reads.answers(await this.#sendHeld(false, reads.sent)).forEach((result, i) => batch[i]!.resolve(result as never));
        return;
      }
      if (this.#held.length) await this.#sendHeld(false);
      const ordered = batch[0]!.write ? [...batch.slice(1), batch[0]!] : batch;
      const { sent, answers } = unionReads(ordered);
      const answer = (results: unknown[]) => answers(results).forEach((result, i) => ordered[i]!.resolve(result as never));
      // A lone statement stays prepared (a text query would bind `page`'s LIMIT as a quoted string).
      if (sent.length === 1) return answer([await this.#request<unknown>('execute', sent[0]!.sql, sent[0]!.values)]);
      const savepoint = this.#opensSavepoint();
      const statements = [...sent.map((r) => r.sql), ...(savepoint ? [SAVEPOINT] : [])];
      const results = await this.#request<unknown[]>('query', statements.join(';\n'), sent.flatMap((r) => r.values));
      if (savepoint) this.#savepoint = true;
      answer(results);
    } catch (error) {
      const [first, ...rest] = batch;
      if (first?.write && rest.length && isDuplicateKey(error) && !this.#doomed) {
        first.reject(error);
        return this.#sendBatch(rest);
      }
      for (const r of batch) r.reject(error);
    }
  }

  /**
   * Sends the held writes as one query, with the COMMIT when `commit`, or with `reads`, whose
   * results it returns, when not (rules 5 and 6). A failure dooms the attempt: a duplicate key
   * as `StoreConflictError`, a held update that matched no row as its error; a deadlock or a
   * certification failure is retried by the store.
   */
  async #sendHeld(commit: boolean, reads: readonly QueryStatement[] = []): Promise<unknown[]> {
    const writes = this.#held;
    this.#held = [];
    const open = this.#opensSavepoint();
    const batch = new HeldBatch(writes, commit, this.#settings.guardBlocks, reads, { open, release: this.#settings.galera });
    let results: unknown[];
    try {
      results = batch.results(await this.#direct<ResultSetHeader>('query', batch.sql, batch.values));
    } catch (error) {
      if (isServerError(error)) {
        const unmatched = batch.unmatchedBy(error);
        this.#doomed = unmatched ?? conflictOf(error, batch.collections());
        throw this.#doomed;
      }
      this.#doomed = this.#connectionBroke(error, batch.commits);
      throw this.#doomed;
    }
    if (open) this.#savepoint = true;
    const unmatched = batch.firstUnmatched(results);
    if (unmatched !== null) {
      this.#doomed = unmatched;
      throw this.#doomed;
    }
    if (batch.commitAfterCheck) await this.#control('COMMIT');
    return batch.readResults(results);
  }

  /** One query or prepared statement of `work`; a broken connection or a deadlock dooms the attempt. */
  async #request<R>(method: 'execute' | 'query', sql: string, values: readonly SqlValue[]): Promise<R> {
    if (this.#doomed) throw this.#doomed;
    try {
      return await this.#direct<R & ResultSetHeader>(method, sql, values);
    } catch (error) {
      if (isRetryable(error)) this.#doomed = error;
      if (isServerError(error)) throw error;
      this.#doomed = this.#connectionBroke(error);
      throw this.#doomed;
    }
  }

  /** Whether the next query of this attempt sets the savepoint of rule 11. */
  #opensSavepoint(): boolean {
    return this.#settings.galera && !this.#settings.readOnly && !this.#savepoint;
  }

  /** COMMIT or ROLLBACK on its own. */
  async #control(sql: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    try {
      await this.#direct<ResultSetHeader>('query', sql, []);
    } catch (error) {
      if (isServerError(error)) throw error;
      throw this.#connectionBroke(error, sql === 'COMMIT');
    }
  }

  async #direct<R extends RowDataPacket[] | ResultSetHeader>(method: 'execute' | 'query', sql: string, values: readonly SqlValue[]): Promise<R> {
    const { readOnly, queryTimeout, watch } = this.#settings;
    if (!readOnly) return direct<R>(this.#connection ?? (await this.#take()), method, sql, values, queryTimeout, watch);
    // Read-only (rule 9): a connection for this query alone; a broken one is dropped here.
    this.#reused = false;
    const { connection, reused } = await this.#acquire();
    this.#reused = reused;
    try {
      const result = await direct<R>(connection, method, sql, values, queryTimeout, watch);
      connection.release();
      return result;
    } catch (error) {
      if (isServerError(error)) connection.release();
      else connection.destroy();
      throw error;
    }
  }

  /** The unit's connection, taken with its first query (rule 10). */
  #take(): Promise<PoolConnection> {
    return (this.#taking ??= this.#acquire().then((acquired) => {
      this.#connection = acquired.connection;
      this.#reused = acquired.reused;
      return acquired.connection;
    }));
  }

  /**
   * A failure of the connection (not an answer of the server): probe the database, drop the
   * connection. With `committing` (a COMMIT was sent), the COMMIT may or may not have happened:
   * the unit must not run again, which could apply it twice.
   */
  #connectionBroke(error: unknown, committing = false): MySqlStoreError {
    this.#settings.watch.circuit.suspect();
    this.#broken = true;
    if (committing) this.#uncertain = true;
    return connectionFailure(error);
  }

  /** Waits until every turn asked for has been sent and answered (rule 7). */
  async #settled(): Promise<void> {
    while (this.#turns.size) await Promise.all(this.#turns);
  }
}
