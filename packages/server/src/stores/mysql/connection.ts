import { createConnection } from 'mysql2';
import type { Connection, PoolConnection } from 'mysql2';
import { createPool } from 'mysql2/promise';
import type { Pool } from 'mysql2/promise';
import { createCircuit } from './circuit.js';
import type { Circuit } from './circuit.js';
import { connectionFailure, isServerError } from './errors.js';
import type { Settings } from './options.js';
import { direct } from './statement.js';
import type { Watch } from './statement.js';

/** A pooled connection, and whether it served before (a reused one may have been closed by the server meanwhile). */
export interface Acquired {
  connection: PoolConnection;
  reused: boolean;
}

/**
 * The store's connections to the database: two pools (units of work with autocommit off; read-only
 * units and single statements with autocommit on, opened on first use), connections of their own
 * for probes and server detection, and the circuit that knows whether the database answers.
 */
export class Connections {
  /** Whether the database answers; probes it on a fresh connection when something looks wrong. */
  readonly circuit: Circuit;
  /** The circuit and the probe delay, for every statement of a unit of work. */
  readonly watch: Watch;
  readonly #settings: Settings;
  readonly #pool: Pool;
  /**
   * Read-only units and single autocommitted statements: sessions with autocommit on, so they
   * need no COMMIT round trip. Opened on first use.
   */
  #readPool: Pool | null = null;
  /** Pooled connections whose session is set up for the store. */
  readonly #prepared = new WeakSet<PoolConnection>();

  constructor(settings: Settings) {
    this.#settings = settings;
    this.#pool = this.#newPool();
    this.circuit = createCircuit({ probe: () => this.#probe(), probeEveryMs: 500 });
    this.watch = { circuit: this.circuit, probeAfterMs: settings.probeAfterMs };
  }

  /** A connection outside the pools, for one statement; the caller destroys it. */
  single(): Connection {
    const { url, connectTimeout } = this.#settings;
    const connection = createConnection({ uri: url, connectTimeout, charset: 'UTF8MB4_BIN' });
    connection.on('error', () => undefined);
    return connection;
  }

  /**
   * A pooled connection (of the read pool when `readOnly`), its session set up for the store on
   * first use (`galera`: with the cluster's `wsrep_sync_wait`); fails after `acquireTimeoutMs`.
   */
  async acquire(readOnly: boolean, galera: boolean): Promise<Acquired> {
    const connection = await this.#take(readOnly ? (this.#readPool ??= this.#newPool()) : this.#pool);
    const reused = this.#prepared.has(connection);
    if (!reused) {
      const { lockWait, syncWait, queryTimeout } = this.#settings;
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
      this.#prepared.add(connection);
    }
    return { connection, reused };
  }

  /** Stops the background probes and closes both pools. */
  async close(): Promise<void> {
    this.circuit.close();
    await Promise.all([this.#pool.end(), this.#readPool?.end()]);
  }

  #newPool(): Pool {
    const { url, poolSize, connectTimeout } = this.#settings;
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
  }

  /** A connection of `from`'s callback pool (the promise pool wraps every connection it hands out in a new object). */
  #take(from: Pool): Promise<PoolConnection> {
    return new Promise<PoolConnection>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        reject(connectionFailure({ code: 'ACQUIRE_TIMEOUT', message: 'no pooled connection became free in time' }));
      }, this.#settings.acquireTimeout);
      from.pool.getConnection((error, c) => {
        if (error) {
          // No new connection could be made: probe at once; a failed probe marks the database down
          // (one slow connect alone, on a busy database, does not abort everyone's statements).
          if (!isServerError(error)) this.circuit.suspect();
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
  }

  /** `SELECT 1` on a fresh connection, within the connect timeout plus `probeAfterMs`. */
  #probe(): Promise<void> {
    const { connectTimeout, probeAfterMs } = this.#settings;
    return new Promise<void>((resolve, reject) => {
      const connection = this.single();
      const finish = (error: unknown) => {
        clearTimeout(timer);
        connection.destroy();
        if (error) reject(error);
        else resolve();
      };
      const timer = setTimeout(() => finish(new Error('probe got no answer')), connectTimeout + probeAfterMs);
      connection.query({ sql: 'SELECT 1', timeout: probeAfterMs }, (error) => finish(error));
    });
  }
}
