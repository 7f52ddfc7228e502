import type { RowDataPacket } from 'mysql2/promise';
import type { Connections } from './connection.js';
import { MySqlStoreError, connectionFailure, isServerError } from './errors.js';
import { latestVersion, migrate } from './migrate.js';
import type { Settings } from './options.js';
import { direct } from './statement.js';

interface VersionRow extends RowDataPacket {
  version: number | null;
}
/** A row of `SHOW GLOBAL VARIABLES` or `SHOW GLOBAL STATUS`. */
export interface NameValueRow extends RowDataPacket {
  Variable_name: string;
  Value: string;
}

const ER_NO_SUCH_TABLE = 1146;

/**
 * Whether the store may run units of work: the schema is current (migrated, or checked when
 * `migrate: false`), and what kind of server it talks to is known. Computed once, on the first
 * `ready()`; a failure is not remembered, so the next call tries again.
 */
export class Readiness {
  #galera = false;
  #compoundStatements = false;
  #pending: Promise<void> | null = null;
  readonly #settings: Settings;
  readonly #connections: Connections;

  constructor(settings: Settings, connections: Connections) {
    this.#settings = settings;
    this.#connections = connections;
  }

  /** The database is a node of a Galera cluster (`wsrep_on`); known once `ready()` resolved. */
  get galera(): boolean {
    return this.#galera;
  }

  /** The server runs MariaDB's anonymous blocks (`BEGIN NOT ATOMIC`), used as guards in held batches; known once `ready()` resolved. */
  get compoundStatements(): boolean {
    return this.#compoundStatements;
  }

  /** Resolves once the schema is current and the server known; after a failure the next call tries again. */
  ready(): Promise<void> {
    const { url, connectTimeout } = this.#settings;
    this.#pending ??= (this.#settings.migrate ? migrate(url, { connectTimeoutMs: connectTimeout }).then(() => undefined) : this.#checkVersion())
      .then(() => this.#detectServer())
      .then((server) => {
        this.#galera = server.galera;
        this.#compoundStatements = server.mariadb && this.#settings.compoundStatements;
      })
      .catch((error: unknown) => {
        this.#pending = null;
        throw error;
      });
    return this.#pending;
  }

  /** Refuses a database without the schema or with one older than this code (`store_schema`). */
  async #checkVersion(): Promise<void> {
    const { queryTimeout } = this.#settings;
    const { connection } = await this.#connections.acquire(false, this.#galera);
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
  #detectServer(): Promise<{ galera: boolean; mariadb: boolean }> {
    return new Promise((resolve, reject) => {
      const connection = this.#connections.single();
      const sql = "SHOW GLOBAL VARIABLES WHERE `Variable_name` IN ('wsrep_on', 'version')";
      connection.query<NameValueRow[]>({ sql, timeout: this.#settings.queryTimeout }, (error, rows) => {
        connection.destroy();
        if (error) return reject(isServerError(error) ? error : connectionFailure(error));
        const value = (name: string) => rows.find((r) => r.Variable_name.toLowerCase() === name)?.Value ?? '';
        resolve({ galera: value('wsrep_on') === 'ON', mariadb: /mariadb/i.test(value('version')) });
      });
    });
  }
}
