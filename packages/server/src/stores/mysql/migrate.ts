import { randomBytes } from 'node:crypto';
import { createConnection, escapeId } from 'mysql2/promise';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { ER_DUP_ENTRY, ER_LOCK_DEADLOCK, MySqlStoreError, connectionFailure, isServerError } from './errors.js';
import { migrations } from './migrations.js';
import { splitStoreUrl } from './url-options.js';

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /** Create the database named in the URL when it does not exist. Default true. */
  createDatabase?: boolean;
  /** How long to wait for another instance that is migrating the same database. Default 60 s. */
  lockTimeoutSeconds?: number;
  /** Default 5000 ms. */
  connectTimeoutMs?: number;
}

/** What {@link migrate} did. */
export interface MigrateResult {
  /** Versions applied by this call, oldest first (empty when the schema was current). */
  applied: number[];
  /** The schema version now in the database. */
  version: number;
}

const ER_BAD_DB_ERROR = 1049;

/** The database named by a `mysql://user:password@host:port/database` URL. */
export function databaseName(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  if (!name) throw new MySqlStoreError('store_schema', `mysql store: the URL names no database (${redact(url)})`);
  return name;
}

/** The URL without its password, for messages. */
export function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/**
 * Brings the database at `url` to the newest schema version: creates the database if needed,
 * then applies each migration not yet recorded in its `schema_migrations` table, in order.
 * Running it again changes nothing. Instances starting together take turns through a lock row
 * in an InnoDB table (`schema_migrations_lock`, taken by an autocommitted insert, so it also
 * holds across the nodes of a Galera cluster, where `GET_LOCK` is per node), so a migration never
 * runs twice at once.
 *
 * @example
 * ```ts
 * import { migrate } from '@svc-licensing/server';
 * const { applied, version } = await migrate('mysql://root@127.0.0.1:3306/licensing');
 * console.log(`schema at version ${version}; applied ${applied.join(', ') || 'nothing'}`);
 * ```
 */
export async function migrate(databaseUrl: string, options: MigrateOptions = {}): Promise<MigrateResult> {
  const { url } = splitStoreUrl(databaseUrl);
  const database = databaseName(url);
  const connectTimeout = options.connectTimeoutMs ?? 5000;
  const connect = async (withDatabase: boolean): Promise<Connection> => {
    const target = new URL(url);
    if (!withDatabase) target.pathname = '';
    try {
      return await createConnection({ uri: target.toString(), connectTimeout, charset: 'utf8mb4_bin' });
    } catch (error) {
      throw isServerError(error) ? error : connectionFailure(error);
    }
  };

  let connection: Connection;
  try {
    connection = await connect(true);
  } catch (error) {
    if ((error as { errno?: number }).errno !== ER_BAD_DB_ERROR || options.createDatabase === false) throw error;
    const admin = await connect(false);
    try {
      await admin.query(`CREATE DATABASE IF NOT EXISTS ${escapeId(database)} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    } finally {
      await admin.end();
    }
    connection = await connect(true);
  }

  try {
    // Autocommitted: the lock row must be visible to other instances the moment it is written.
    await connection.query('SET SESSION autocommit = 1');
    await connection.query(
      'CREATE TABLE IF NOT EXISTS `schema_migrations_lock` (`id` INT NOT NULL, `owner` VARCHAR(64) NOT NULL, ' +
        '`expires_at` DATETIME(3) NOT NULL, PRIMARY KEY (`id`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin',
    );
    const owner = randomBytes(16).toString('hex');
    await takeLock(connection, owner, database, options.lockTimeoutSeconds ?? 60);
    try {
      await connection.query(
        'CREATE TABLE IF NOT EXISTS `schema_migrations` (`version` INT NOT NULL, `name` VARCHAR(191) NOT NULL, ' +
          '`applied_at` TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (`version`)) ' +
          'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin',
      );
      const [rows] = await connection.query<VersionRow[]>('SELECT `version` FROM `schema_migrations`');
      const done = new Set(rows.map((r) => Number(r.version)));
      const applied: number[] = [];
      for (const migration of migrations) {
        if (done.has(migration.version)) continue;
        // DDL commits implicitly in MySQL, so a migration is not atomic; its statements are
        // idempotent instead, and the version row is written only after all of them ran.
        for (const statement of migration.statements) {
          await connection.query(statement);
          await renewLock(connection, owner);
        }
        await connection.query('INSERT INTO `schema_migrations` (`version`, `name`) VALUES (?, ?)', [migration.version, migration.name]);
        applied.push(migration.version);
      }
      const version = Math.max(0, ...done, ...applied);
      return { applied, version };
    } finally {
      await connection.query('DELETE FROM `schema_migrations_lock` WHERE `id` = 1 AND `owner` = ?', [owner]).catch(() => undefined);
    }
  } catch (error) {
    if (MySqlStoreError.is(error)) throw error;
    throw new MySqlStoreError('store_schema', `mysql store: migrating ${database} failed: ${(error as Error).message}`, { cause: error });
  } finally {
    await connection.end().catch(() => connection.destroy());
  }
}

/** The schema version this code expects: the newest migration. */
export const latestVersion = (): number => Math.max(...migrations.map((m) => m.version));

/** How long a migration lock holds without renewal (an instance that died while migrating). */
const LOCK_LEASE_SECONDS = 30;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Takes the migration lock: one row in an InnoDB table, inserted autocommitted. Two instances
 * inserting it at once conflict on its primary key (on one server the second insert fails as a
 * duplicate; on Galera, on different nodes, one of the two write sets fails certification), so
 * exactly one holds it, on a single server and on a multi-primary cluster alike (`GET_LOCK` is
 * per node on Galera). A lock whose lease ran out (its holder died) is taken over.
 */
async function takeLock(connection: Connection, owner: string, database: string, timeoutSeconds: number): Promise<void> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  for (;;) {
    await connection.query('DELETE FROM `schema_migrations_lock` WHERE `id` = 1 AND `expires_at` < NOW(3)');
    try {
      await connection.query(
        `INSERT INTO \`schema_migrations_lock\` (\`id\`, \`owner\`, \`expires_at\`) VALUES (1, ?, NOW(3) + INTERVAL ${LOCK_LEASE_SECONDS} SECOND)`,
        [owner],
      );
      return;
    } catch (error) {
      const errno = (error as { errno?: number }).errno;
      if (errno !== ER_DUP_ENTRY && errno !== ER_LOCK_DEADLOCK) throw error;
    }
    if (Date.now() > deadline) throw new MySqlStoreError('store_schema', `mysql store: another instance is still migrating ${database}`);
    await sleep(100 + Math.random() * 150);
  }
}

/** Extends the lease while a long migration runs. */
async function renewLock(connection: Connection, owner: string): Promise<void> {
  await connection.query(
    `UPDATE \`schema_migrations_lock\` SET \`expires_at\` = NOW(3) + INTERVAL ${LOCK_LEASE_SECONDS} SECOND WHERE \`id\` = 1 AND \`owner\` = ?`,
    [owner],
  );
}
interface VersionRow extends RowDataPacket {
  version: number;
}
