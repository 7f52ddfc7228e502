import type { Store, StoreTx, TransactionOptions } from '@svc-licensing/license-engine';
import { createPool } from 'mysql2/promise';
import type { PoolConnection } from 'mysql2';
import type { ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { createConnection as createProbeConnection } from 'mysql2';
import { createCircuit } from './circuit.js';
import type { Circuit } from './circuit.js';
import { MySqlStoreError, connectionFailure, isDuplicateKey, isRetryable, isServerError } from './errors.js';
import { databaseName, latestVersion, migrate } from './migrate.js';
import { conflictOf, createTx } from './tx.js';
import { splitStoreUrl } from './url-options.js';
import type { HeldWrite, Run, SqlValue } from './tx.js';

/**
 * Options of {@link createMySqlStore}. Every one has a default fit for one server process; the
 * numeric ones may also be given in the URL's query string (`?poolSize=20&queryTimeoutMs=5000`).
 */
export interface MySqlStoreOptions {
  /**
   * Most connections open at once in each of the store's two pools (one for units of work, one
   * for read-only units, which run autocommitted). Default 10.
   */
  poolSize?: number;
  /** Give up connecting after this long. Default 1000 ms. */
  connectTimeoutMs?: number;
  /**
   * A statement without an answer for this long makes the store probe the database on a fresh
   * connection (`SELECT 1`, bounded by `connectTimeoutMs` and this value). A failed probe marks the
   * database down: statements in flight fail with `store_timeout`, and every call fails at once
   * with `store_unavailable` until a background probe (every half second) succeeds. A slow query
   * or a lock wait passes the probe and keeps waiting up to `queryTimeoutMs`. Default 1000 ms.
   */
  probeAfterMs?: number;
  /** Give up on one statement after this long (the connection is then discarded). Default 10000 ms. */
  queryTimeoutMs?: number;
  /** Give up waiting for a free pooled connection after this long. Default: `queryTimeoutMs`. */
  acquireTimeoutMs?: number;
  /** `innodb_lock_wait_timeout` of the store's sessions, in whole seconds. Default 5. */
  lockWaitTimeoutSeconds?: number;
  /** How many times a unit of work runs again after a deadlock or lock-wait timeout. Default 5. */
  maxRetries?: number;
  /** Apply pending migrations before the first transaction. Default true; when false, a schema older than this code is refused. */
  migrate?: boolean;
  /**
   * On a Galera cluster: the `wsrep_sync_wait` of the store's sessions. 1 (the default on Galera)
   * makes every read wait until this node has applied every write set the cluster committed
   * before the read began, so a request to any node sees every write acknowledged by any other
   * (read-your-writes across nodes); 0 turns it off (reads may miss writes made through other
   * nodes a moment earlier). Ignored on a server without Galera.
   */
  syncWait?: number;
  /**
   * @internal Tests only: `false` makes a MariaDB server take the path a server without anonymous
   * compound statements (MySQL 8) takes for held updates (their COMMIT waits for a check).
   */
  compoundStatements?: boolean;
}

/** A {@link Store} on MySQL 8 or MariaDB 10.11+, shareable by many server processes. */
export interface MySqlStore extends Store {
  /**
   * Resolves once the schema is current (migrating it unless `migrate: false`). Transactions
   * wait for it by themselves; call it at start-up to fail early on a bad URL. After a failure
   * the next call tries again.
   */
  ready(): Promise<void>;
  /** Whether the database is a node of a Galera cluster (`wsrep_on`); known once `ready()` resolved. */
  readonly galera: boolean;
  /**
   * Readiness for a load balancer: resolves `null` when the database answers a read within
   * `timeoutMs` (default 1000; on Galera the node must also be `wsrep_ready`, `Synced` and in the
   * Primary component), else the reason it is not ready. Never rejects, never waits longer.
   */
  health(timeoutMs?: number): Promise<string | null>;
}

interface VersionRow extends RowDataPacket {
  version: number | null;
}
interface StatusRow extends RowDataPacket {
  Variable_name: string;
  Value: string;
}

const ER_NO_SUCH_TABLE = 1146;
const ER_SIGNAL_EXCEPTION = 1644;
const UNMATCHED = 'svc: held update matched no row #';

/**
 * MariaDB's anonymous block after a held UPDATE: fails the batch (and so skips its COMMIT) when
 * the update matched no row (`ROW_COUNT()` counts matched rows: the driver sets CLIENT_FOUND_ROWS).
 */
const unmatchedGuard = (index: number) =>
  `BEGIN NOT ATOMIC IF ROW_COUNT() = 0 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '${UNMATCHED}${index}'; END IF; END`;

/** The index of the held write whose guard failed, or null for any other error. */
function unmatchedIndex(error: unknown): number | null {
  const { errno, sqlMessage } = error as { errno?: number; sqlMessage?: string };
  if (errno !== ER_SIGNAL_EXCEPTION || !sqlMessage?.startsWith(UNMATCHED)) return null;
  return Number(sqlMessage.slice(UNMATCHED.length));
}

/**
 * One statement on the driver's callback API. The promise wrapper captures a stack trace for
 * every statement, a tenth of a server's CPU under load; errors here carry the driver's fields
 * (`errno`, `sqlState`, `fatal`) all the same.
 */
function direct<R extends RowDataPacket[] | ResultSetHeader>(
  connection: PoolConnection,
  method: 'execute' | 'query',
  sql: string,
  values: readonly SqlValue[],
  timeout: number,
  guard?: { circuit: Circuit; probeAfterMs: number },
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
      if (error) reject(error);
      else resolve(rows as R);
    };
    if (guard) {
      // The circuit aborts the statement when the database is found down (the connection is dropped).
      untrack = guard.circuit.track((error) => {
        callback(error, null);
        connection.destroy();
      });
      watchdog = setTimeout(() => guard.circuit.suspect(), guard.probeAfterMs);
      watchdog.unref?.();
    }
    if (method === 'execute') connection.execute({ sql, values: [...values], timeout }, callback);
    else connection.query({ sql, values: [...values], timeout }, callback);
  });
}

/** Runs raw statements as one unit of work (with the store's retries). Internal. */
export type RawUnit = <T>(work: (run: Run) => Promise<T>) => Promise<T>;
const rawUnits = new WeakMap<MySqlStore, RawUnit>();

/**
 * Runs one prepared statement autocommitted (its own transaction, no COMMIT round trip) on the
 * read pool, with the store's stale-connection retry. Internal.
 */
export type RawAutocommit = <R>(sql: string, values: readonly SqlValue[]) => Promise<R>;
const rawAutocommits = new WeakMap<MySqlStore, RawAutocommit>();

/** The autocommitted query runner of a store made by {@link createMySqlStore}. Internal. */
export function rawAutocommitOf(store: MySqlStore): RawAutocommit {
  const run = rawAutocommits.get(store);
  if (!run) throw new TypeError('not a store made by createMySqlStore');
  return run;
}

/** The raw unit-of-work runner of a store made by {@link createMySqlStore}. Internal. */
export function rawUnitOf(store: MySqlStore): RawUnit {
  const unit = rawUnits.get(store);
  if (!unit) throw new TypeError('not a store made by createMySqlStore');
  return unit;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Creates a store on the MySQL or MariaDB database at `url`
 * (`mysql://user:password@host:3306/database`). Each unit of work is one database transaction
 * on a pooled connection (`lock: true` reads are `SELECT ... FOR UPDATE`); it runs again after
 * a deadlock or lock-wait timeout, up to `maxRetries` times. A `{ readOnly: true }` unit runs its
 * SELECTs autocommitted on a second pool (no transaction, no `COMMIT`) and refuses writes. While the database is unreachable
 * every call fails quickly with a {@link MySqlStoreError}; the pool reconnects by itself.
 *
 * @example
 * ```ts
 * import { createMySqlStore } from '@svc-licensing/server/mysql';
 * const store = createMySqlStore('mysql://root@127.0.0.1:3306/licensing', { poolSize: 20 });
 * await store.ready(); // migrates the schema
 * const account = await store.transaction((tx) => tx.get('accounts', 'acc_01J...'));
 * await store.close();
 * ```
 */
export function createMySqlStore(databaseUrl: string, storeOptions: MySqlStoreOptions = {}): MySqlStore {
  const { url, options: fromUrl } = splitStoreUrl(databaseUrl);
  const options: MySqlStoreOptions = { ...fromUrl, ...storeOptions };
  databaseName(url);
  const connectTimeout = options.connectTimeoutMs ?? 1000;
  const probeAfterMs = Math.max(1, Math.trunc(options.probeAfterMs ?? 1000));
  const queryTimeout = options.queryTimeoutMs ?? 10_000;
  const acquireTimeout = options.acquireTimeoutMs ?? queryTimeout;
  const lockWait = Math.max(1, Math.trunc(options.lockWaitTimeoutSeconds ?? 5));
  const maxRetries = Math.max(0, Math.trunc(options.maxRetries ?? 5));
  const poolSize = Math.max(1, Math.trunc(options.poolSize ?? 10));
  const syncWait = Math.max(0, Math.trunc(options.syncWait ?? 1));
  /** Set by `ready()`: the database is a Galera node. */
  let galera = false;
  /** Set by `ready()`: the server runs MariaDB's anonymous blocks (`BEGIN NOT ATOMIC`), used as guards in held batches. */
  let compoundStatements = false;

  const newPool = () => {
    const pool = createPool({
      // Units of work send held writes with their COMMIT, and reads asked for together, as one
      // multi-statement query; every value in it is escaped by the driver (`format`), and
      // identifiers come only from the fixed table maps.
      multipleStatements: true,
      uri: url,
      connectionLimit: poolSize,
      maxIdle: poolSize,
      idleTimeout: 60_000,
      connectTimeout,
      enableKeepAlive: true,
      keepAliveInitialDelay: 10_000,
      charset: 'UTF8MB4_BIN',
    });
    // A broken connection may report more than one error; the pool drops it on the first, and
    // this listener keeps the later ones from becoming unhandled 'error' events.
    pool.pool.on('connection', (connection) => connection.on('error', () => undefined));
    return pool;
  };
  const pool = newPool();
  /** `SELECT 1` on a fresh connection, within the connect timeout plus `probeAfterMs`. */
  const probe = () =>
    new Promise<void>((resolve, reject) => {
      const connection = createProbeConnection({ uri: url, connectTimeout, charset: 'UTF8MB4_BIN' });
      connection.on('error', () => undefined);
      const finish = (error: unknown) => {
        clearTimeout(timer);
        connection.destroy();
        if (error) reject(error);
        else resolve();
      };
      const timer = setTimeout(() => finish(new Error('probe got no answer')), connectTimeout + probeAfterMs);
      connection.query({ sql: 'SELECT 1', timeout: probeAfterMs }, (error) => finish(error));
    });
  const circuit = createCircuit({ probe, probeEveryMs: 500 });
  const guard = { circuit, probeAfterMs };
  /**
   * Read-only units and single autocommitted statements: sessions with autocommit on, so they
   * need no COMMIT round trip. Opened on first use.
   */
  let readPool: ReturnType<typeof createPool> | null = null;
  const prepared = new WeakSet<object>();
  /** Failures after which a retry is unsafe (the connection broke during COMMIT). */
  const uncertain = new WeakSet<object>();
  /** Failures of a reused connection before COMMIT: safe to run again on a fresh connection. */
  const stale = new WeakSet<object>();
  let closed = false;
  let readiness: Promise<void> | null = null;

  async function checkVersion(): Promise<void> {
    const connection = await acquire();
    let broken = false;
    try {
      const rows = await direct<VersionRow[]>(connection, 'query', 'SELECT MAX(`version`) AS `version` FROM `schema_migrations`', [], queryTimeout);
      const version = Number(rows[0]?.version ?? 0);
      if (version < latestVersion()) {
        throw new MySqlStoreError('store_schema', `mysql store: schema version ${version}, this code needs ${latestVersion()}: run the migrations`);
      }
    } catch (error) {
      if ((error as { errno?: number }).errno === ER_NO_SUCH_TABLE) {
        throw new MySqlStoreError('store_schema', 'mysql store: the database has no schema: run the migrations', { cause: error });
      }
      broken = !isServerError(error);
      throw MySqlStoreError.is(error) || isServerError(error) ? error : connectionFailure(error);
    } finally {
      // Sessions run with autocommit off: end the read's transaction before the next user.
      if (!broken) await direct(connection, 'query', 'ROLLBACK', [], queryTimeout).catch(() => (broken = true));
      if (broken) connection.destroy();
      else connection.release();
    }
  }

  /**
   * Whether the server runs Galera (`wsrep_on`; MySQL 8 has no such variable) and is MariaDB
   * (anonymous compound statements), on a connection of its own.
   */
  const detectServer = () =>
    new Promise<{ galera: boolean; mariadb: boolean }>((resolve, reject) => {
      const connection = createProbeConnection({ uri: url, connectTimeout, charset: 'UTF8MB4_BIN' });
      connection.on('error', () => undefined);
      connection.query<StatusRow[]>({ sql: "SHOW GLOBAL VARIABLES WHERE `Variable_name` IN ('wsrep_on', 'version')", timeout: queryTimeout }, (error, rows) => {
        connection.destroy();
        if (error) return reject(isServerError(error) ? error : connectionFailure(error));
        const value = (name: string) => rows.find((r) => r.Variable_name.toLowerCase() === name)?.Value ?? '';
        resolve({ galera: value('wsrep_on') === 'ON', mariadb: /mariadb/i.test(value('version')) });
      });
    });

  function ready(): Promise<void> {
    readiness ??= (options.migrate === false ? checkVersion() : migrate(url, { connectTimeoutMs: connectTimeout }).then(() => undefined))
      .then(detectServer)
      .then((server) => {
        galera = server.galera;
        compoundStatements = server.mariadb && options.compoundStatements !== false;
      })
      .catch(
      (error: unknown) => {
        readiness = null;
        throw error;
      },
    );
    return readiness;
  }

  /** A pooled connection, set up for the store on first use; fails after `acquireTimeout`. */
  async function acquire(): Promise<PoolConnection> {
    return (await acquireTracked()).connection;
  }

  /** Like `acquire`, telling whether the connection had been used before (and could be stale). */
  async function acquireTracked(readOnly = false): Promise<{ connection: PoolConnection; reused: boolean }> {
    const from = readOnly ? (readPool ??= newPool()) : pool;
    const connection = await new Promise<PoolConnection>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        reject(connectionFailure({ code: 'ACQUIRE_TIMEOUT', message: 'no pooled connection became free in time' }));
      }, acquireTimeout);
      // The driver's callback pool: the promise pool wraps every connection it hands out in a new object.
      from.pool.getConnection((error, c) => {
        if (error) {
          // No new connection could be made: probe at once; a failed probe marks the database down
          // (one slow connect alone, on a busy database, does not abort everyone's statements).
          if (!isServerError(error)) circuit.suspect();
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          reject(isServerError(error) ? error : connectionFailure(error));
          return;
        }
        if (settled) return c.release();
        settled = true;
        clearTimeout(timer);
        resolve(c);
      });
    });
    const reused = prepared.has(connection);
    if (!reused) {
      try {
        await direct(
          connection,
          'query',
          // autocommit off: the first statement of a unit opens its transaction, which saves the
          // round trip of a START TRANSACTION per unit; COMMIT or ROLLBACK always ends it.
          // Read-only units keep autocommit on: each SELECT is its own consistent read.
          "SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION', SESSION innodb_lock_wait_timeout = ?, SESSION autocommit = ?" +
            // Galera: reads wait for the write sets committed anywhere in the cluster before them.
            (galera ? ', SESSION wsrep_sync_wait = ?' : ''),
          galera ? [lockWait, readOnly ? 1 : 0, syncWait] : [lockWait, readOnly ? 1 : 0],
          queryTimeout,
        );
        await direct(connection, 'query', 'SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ', [], queryTimeout);
      } catch (error) {
        connection.destroy();
        throw isServerError(error) ? error : connectionFailure(error);
      }
      prepared.add(connection);
    }
    return { connection, reused };
  }

  /** One attempt at `work` in one database transaction (read-only: autocommitted SELECTs only). */
  async function attempt<T>(work: (run: Run, hold: (write: HeldWrite) => void) => Promise<T>, readOnly: boolean): Promise<T> {
    const { connection, reused } = await acquireTracked(readOnly);
    // Set when the server rolled the transaction back (deadlock) or the connection broke:
    // nothing more may run in this attempt, even if `work` swallowed the error.
    let doomed: unknown = null;
    let broken = false;
    const control = async (sql: string) => {
      try {
        await direct<ResultSetHeader>(connection, 'query', sql, [], queryTimeout, guard);
      } catch (error) {
        if (isServerError(error)) throw error;
        circuit.suspect();
        broken = true;
        const failure = connectionFailure(error);
        // The COMMIT may or may not have happened: running the work again could apply it twice.
        if (sql === 'COMMIT') uncertain.add(failure);
        throw failure;
      }
    };
    /** Writes held by `{ defer: true }`, sent before the next statement or with the COMMIT. */
    const held: HeldWrite[] = [];
    const hold = (write: HeldWrite) => {
      if (doomed) throw doomed;
      held.push(write);
    };
    /**
     * Sends the held writes as one multi-statement query, followed by COMMIT when `commit`, or by
     * the SELECTs `reads` (whose results it returns) when not. A failure dooms the attempt: nothing
     * more runs, and `transaction` rejects with it (a duplicate key as `StoreConflictError`, a
     * deadlock or certification failure is retried).
     */
    const sendHeld = async (commit: boolean, reads: readonly Queued[] = []): Promise<unknown[]> => {
      const writes = held.splice(0);
      // An update must have matched its row before anything commits: on MariaDB a guard block after
      // each such update fails the batch before its COMMIT; elsewhere the COMMIT waits for the check.
      const guarded = commit && compoundStatements;
      const commitAfterCheck = commit && !guarded && writes.some((w) => w.mustMatch);
      const statements = writes.map((w, i) => (guarded && w.mustMatch ? `${w.sql};\n${unmatchedGuard(i)}` : w.sql));
      if (commit && !commitAfterCheck) statements.push('COMMIT');
      for (const r of reads) statements.push(r.sql);
      let list: unknown[];
      try {
        const values = [...writes.flatMap((w) => w.values), ...reads.flatMap((r) => r.values)];
        const results = await direct<ResultSetHeader>(connection, 'query', statements.join(';\n'), values, queryTimeout, guard);
        list = statements.length === 1 ? [results] : (results as unknown as unknown[]);
      } catch (error) {
        if (isServerError(error)) {
          const unmatched = unmatchedIndex(error);
          doomed = unmatched === null ? conflictOf(error, writes.map((w) => w.collection)) : new Error(writes[unmatched]!.mustMatch);
          throw doomed;
        }
        circuit.suspect();
        broken = true;
        const failure = connectionFailure(error);
        if (commit && !commitAfterCheck) uncertain.add(failure);
        doomed = failure;
        throw failure;
      }
      if (!guarded) {
        const unmatched = writes.find((w, i) => w.mustMatch && (list[i] as ResultSetHeader | undefined)?.affectedRows === 0);
        if (unmatched) {
          doomed = new Error(unmatched.mustMatch);
          throw doomed;
        }
      }
      if (commitAfterCheck) await control('COMMIT');
      return list.slice(list.length - reads.length);
    };
    /** One request on the connection; a failure of the connection or a deadlock dooms the attempt. */
    const request = async <R,>(method: 'execute' | 'query', sql: string, values: readonly SqlValue[]): Promise<R> => {
      if (doomed) throw doomed;
      try {
        return await direct<R & ResultSetHeader>(connection, method, sql, values, queryTimeout, guard);
      } catch (error) {
        if (isRetryable(error)) doomed = error;
        if (isServerError(error)) throw error;
        circuit.suspect();
        broken = true;
        doomed = connectionFailure(error);
        throw doomed;
      }
    };
    /**
     * Statements asked for in the same turn (`Promise.all`): SELECTs, and at most one write asked
     * for before them (an insert-first claim asked for with the reads it goes with), sent as one
     * multi-statement query, one round trip for all of them. A lone statement stays a prepared one.
     * In that query the reads run first and the write last, so they do not see it: on Galera a
     * node waits for the cluster's earlier commits (`wsrep_sync_wait`) only before a read that
     * opens a transaction, never after a write opened it.
     */
    type Queued = { sql: string; values: readonly SqlValue[]; write: boolean; resolve: (result: never) => void; reject: (error: unknown) => void };
    let turn: Queued[] = [];
    /** The turns not finished yet: the unit's COMMIT or ROLLBACK waits for them (a statement `work` did not await included). */
    const turns = new Set<Promise<void>>();
    const sendTurn = async () => {
      const queued = turn;
      turn = [];
      // In the order asked: each write starts a query of its own, the reads after it join it.
      let batch: Queued[] = [];
      for (const q of queued) {
        if (q.write && batch.length) {
          await sendBatch(batch);
          batch = [];
        }
        batch.push(q);
      }
      await sendBatch(batch);
    };
    const sendBatch = async (batch: Queued[]): Promise<void> => {
      try {
        if (held.length && !batch[0]!.write) {
          // Reads go in the held writes' query (a write's clash must stay its own answer, so it does not).
          const results = await sendHeld(false, batch);
          batch.forEach((r, i) => r.resolve(results[i] as never));
          return;
        }
        if (held.length) await sendHeld(false);
        if (batch.length === 1) return batch[0]!.resolve(await request<never>('execute', batch[0]!.sql, batch[0]!.values));
        const ordered = batch[0]!.write ? [...batch.slice(1), batch[0]!] : batch;
        const results = await request<never[]>('query', ordered.map((r) => r.sql).join(';\n'), ordered.flatMap((r) => r.values));
        ordered.forEach((r, i) => r.resolve(results[i]!));
      } catch (error) {
        const [first, ...rest] = batch;
        // A claim's clash fails the whole query: the reads are asked again on their own.
        if (first?.write && rest.length && isDuplicateKey(error) && !doomed) {
          first.reject(error);
          return sendBatch(rest);
        }
        for (const r of batch) r.reject(error);
      }
    };
    const run: Run = async <R extends RowDataPacket[] | ResultSetHeader>(sql: string, values: readonly SqlValue[]) => {
      if (doomed) throw doomed;
      const write = !/^\s*SELECT\b/i.test(sql);
      if (readOnly && write) throw new TypeError('mysql store: a write in a read-only unit of work');
      return new Promise<R>((resolve, reject) => {
        if (turn.length === 0) {
          const sent: Promise<void> = new Promise<void>((done) => queueMicrotask(() => void sendTurn().finally(done))).then(() => void turns.delete(sent));
          turns.add(sent);
        }
        turn.push({ sql, values, write, resolve: resolve as (result: never) => void, reject });
      });
    };
    const settled = async () => {
      while (turns.size) await Promise.all(turns);
    };
    try {
      const result = await work(run, hold);
      await settled();
      if (doomed) throw doomed;
      if (readOnly) return result;
      if (held.length) await sendHeld(true);
      else await control('COMMIT');
      return result;
    } catch (error) {
      await settled();
      if (!broken && !readOnly) await control('ROLLBACK').catch(() => (broken = true));
      const failure = doomed ?? error;
      // A pooled connection the server closed meanwhile (restart, idle kill) fails on first use;
      // nothing was committed, so the work may run again on another connection.
      const lost = MySqlStoreError.is(failure) && failure.code === 'store_unavailable' && !uncertain.has(failure);
      if (broken && reused && lost) stale.add(failure);
      throw failure;
    } finally {
      if (broken) connection.destroy();
      else connection.release();
    }
  }

  /** The readiness check of {@link MySqlStore.health}, without its time bound. */
  async function check(timeoutMs: number): Promise<string | null> {
    if (circuit.open) return 'the database is unreachable';
    await ready();
    const { connection } = await acquireTracked(true);
    try {
      if (!galera) {
        await direct(connection, 'query', 'SELECT 1', [], timeoutMs, guard);
        connection.release();
        return null;
      }
      const rows = await direct<StatusRow[]>(
        connection,
        'query',
        "SHOW GLOBAL STATUS WHERE `Variable_name` IN ('wsrep_ready', 'wsrep_local_state_comment', 'wsrep_cluster_status')",
        [],
        timeoutMs,
        guard,
      );
      connection.release();
      const status = Object.fromEntries(rows.map((r) => [r.Variable_name.toLowerCase(), r.Value]));
      if (status['wsrep_ready'] !== 'ON') return 'this Galera node is not ready (wsrep_ready OFF)';
      if (status['wsrep_cluster_status'] !== 'Primary') return `this Galera node is not in the Primary component (${status['wsrep_cluster_status'] ?? 'unknown'})`;
      if (status['wsrep_local_state_comment'] !== 'Synced') return `this Galera node is ${status['wsrep_local_state_comment'] ?? 'not synced'}, not Synced`;
      return null;
    } catch (error) {
      if (isServerError(error)) connection.release();
      else connection.destroy();
      throw error;
    }
  }

  const store: MySqlStore = {
    ready,
    get galera() {
      return galera;
    },
    async health(timeoutMs = 1000) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`the database did not answer within ${timeoutMs} ms`), timeoutMs);
      });
      // Only the error's code: this reason is shown without authentication.
      const answer = check(timeoutMs).catch((error: unknown) => `the database failed the check (${(error as { code?: string })?.code ?? 'error'})`);
      try {
        return await Promise.race([answer, late]);
      } finally {
        clearTimeout(timer);
      }
    },
    transaction<T>(work: (tx: StoreTx) => Promise<T>, options?: TransactionOptions): Promise<T> {
      const readOnly = options?.readOnly === true;
      return unit((run, hold) => work(createTx(run, { readOnly, hold })), readOnly);
    },
    async close() {
      if (closed) return;
      closed = true;
      circuit.close();
      await Promise.all([pool.end(), readPool?.end()]);
    },
  };
  rawUnits.set(store, unit);
  rawAutocommits.set(store, autocommit);
  return store;

  /** One autocommitted query; a reused connection that turns out broken is replaced (bounded). */
  async function autocommit<R>(sql: string, values: readonly SqlValue[]): Promise<R> {
    if (closed) throw new Error('store is closed');
    await ready();
    for (let staleRetries = 0; ; staleRetries++) {
      circuit.check();
      const { connection, reused } = await acquireTracked(true);
      try {
        const result = await direct<ResultSetHeader>(connection, 'execute', sql, values, queryTimeout, guard);
        connection.release();
        return result as R;
      } catch (error) {
        if (isServerError(error)) {
          connection.release();
          throw error;
        }
        connection.destroy();
        if (MySqlStoreError.is(error)) throw error;
        circuit.suspect();
        // A pooled connection the server closed meanwhile fails on first use: try a fresh one.
        if (reused && staleRetries < poolSize) continue;
        throw connectionFailure(error);
      }
    }
  }

  /** Runs `work` in a transaction, again after a deadlock or lock-wait timeout (bounded). */
  async function unit<T>(work: (run: Run, hold: (write: HeldWrite) => void) => Promise<T>, readOnly = false): Promise<T> {
    if (closed) throw new Error('store is closed');
    await ready();
    let staleRetries = 0;
    for (let retry = 0; ; retry++) {
      circuit.check();
      try {
        return await attempt(work, readOnly);
      } catch (error) {
        // Each pooled connection may be stale once; a fresh connection failing is final.
        if (typeof error === 'object' && error !== null && stale.has(error) && staleRetries++ <= poolSize) {
          retry--;
          continue;
        }
        if (!isRetryable(error)) throw error;
        if (retry >= maxRetries) {
          throw new MySqlStoreError('store_busy', `mysql store: transaction still conflicting after ${maxRetries} retries`, { cause: error });
        }
        await sleep(Math.random() * Math.min(250, 10 * 2 ** retry));
      }
    }
  }
}
