import type { Store, StoreTx, TransactionOptions } from '@svc-licensing/license-engine';
import type { ResultSetHeader } from 'mysql2/promise';
import { ClientLicenseReads } from './client-reads.js';
import { Connections } from './connection.js';
import { MySqlStoreError, connectionFailure, isRetryable, isServerError } from './errors.js';
import { health } from './health.js';
import { resolveSettings } from './options.js';
import type { MySqlStoreOptions, Settings } from './options.js';
import { Readiness } from './readiness.js';
import { direct } from './statement.js';
import type { Run, SqlValue } from './statement.js';
import { createTx } from './tx.js';
import { UnitOfWork } from './unit-of-work.js';
import type { UnitWork } from './unit-of-work.js';

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

/** Runs raw statements (and held writes) as one unit of work (with the store's retries). Internal. */
export type RawUnit = <T>(work: UnitWork<T>) => Promise<T>;

/**
 * Runs one prepared statement autocommitted (its own transaction, no COMMIT round trip) on the
 * read pool, with the store's stale-connection retry. Internal.
 */
export type RawAutocommit = <R>(sql: string, values: readonly SqlValue[]) => Promise<R>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What runs a store's statements: its connections, its readiness, and the two ways to run
 * statements, units of work (retried after a deadlock) and single autocommitted statements.
 */
class Runner {
  readonly connections: Connections;
  readonly readiness: Readiness;
  /** The client reads of read-only units, gathered into shared statements. */
  readonly clientReads: ClientLicenseReads;
  readonly #settings: Settings;
  #closed = false;

  constructor(settings: Settings) {
    this.#settings = settings;
    this.connections = new Connections(settings);
    this.readiness = new Readiness(settings, this.connections);
    this.clientReads = new ClientLicenseReads((sql, values) => this.autocommit(sql, values));
  }

  /** Runs `work` in a transaction, again after a deadlock or lock-wait timeout (bounded). */
  async unit<T>(work: UnitWork<T>, readOnly = false): Promise<T> {
    if (this.#closed) throw new Error('store is closed');
    await this.readiness.ready();
    const { circuit, watch } = this.connections;
    const { maxRetries, poolSize, queryTimeout } = this.#settings;
    let staleRetries = 0;
    for (let retry = 0; ; retry++) {
      circuit.check();
      let attempt: UnitOfWork | null = null;
      try {
        const acquire = () => this.connections.acquire(readOnly, this.readiness.galera);
        attempt = new UnitOfWork(acquire, { readOnly, queryTimeout, watch, guardBlocks: this.readiness.compoundStatements, galera: this.readiness.galera });
        return await attempt.complete(work);
      } catch (error) {
        // Each pooled connection may be stale once; a fresh connection failing is final.
        if (attempt?.stale && staleRetries++ <= poolSize) {
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

  /** One autocommitted statement on the read pool; a reused connection that turns out broken is replaced (bounded). */
  async autocommit<R>(sql: string, values: readonly SqlValue[]): Promise<R> {
    if (this.#closed) throw new Error('store is closed');
    await this.readiness.ready();
    const { circuit, watch } = this.connections;
    for (let staleRetries = 0; ; staleRetries++) {
      circuit.check();
      const { connection, reused } = await this.connections.acquire(true, this.readiness.galera);
      try {
        const result = await direct<ResultSetHeader>(connection, 'execute', sql, values, this.#settings.queryTimeout, watch);
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
        if (reused && staleRetries < this.#settings.poolSize) continue;
        throw connectionFailure(error);
      }
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.connections.close();
  }
}

/** The property under which a store made by {@link createMySqlStore} keeps its runner, for this folder's modules. */
const RUNNER = Symbol('mysql store runner');

function runnerOf(store: MySqlStore): Runner {
  const runner = (store as { [RUNNER]?: Runner })[RUNNER];
  if (!runner) throw new TypeError('not a store made by createMySqlStore');
  return runner;
}

/** The autocommitted query runner of a store made by {@link createMySqlStore}. Internal. */
export function rawAutocommitOf(store: MySqlStore): RawAutocommit {
  const runner = runnerOf(store);
  return (sql, values) => runner.autocommit(sql, values);
}

/** The raw unit-of-work runner of a store made by {@link createMySqlStore}. Internal. */
export function rawUnitOf(store: MySqlStore): RawUnit {
  const runner = runnerOf(store);
  return (work) => runner.unit(work);
}

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
  const runner = new Runner(resolveSettings(databaseUrl, storeOptions));
  const store: MySqlStore = {
    ready: () => runner.readiness.ready(),
    get galera() {
      return runner.readiness.galera;
    },
    health: (timeoutMs = 1000) => health(runner.connections, runner.readiness, timeoutMs),
    transaction<T>(work: (tx: StoreTx) => Promise<T>, options?: TransactionOptions): Promise<T> {
      const readOnly = options?.readOnly === true;
      // Read-only units gather their client reads with those of other units (ClientLicenseReads).
      const clientReads = readOnly ? runner.clientReads : undefined;
      return runner.unit((run, hold) => work(createTx(run, { readOnly, hold, compareLocked: runner.readiness.galera, ...(clientReads ? { clientReads } : {}) })), readOnly);
    },
    close: () => runner.close(),
  };
  // Not enumerable: the store's own keys stay those of its type.
  Object.defineProperty(store, RUNNER, { value: runner });
  return store;
}
