import { databaseName } from './migrate.js';
import { splitStoreUrl } from './url-options.js';

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

/** The store's options with every default applied and every number made whole and in range. */
export interface Settings {
  /** The connection URL, without the store options its query string carried. */
  readonly url: string;
  readonly connectTimeout: number;
  readonly probeAfterMs: number;
  readonly queryTimeout: number;
  readonly acquireTimeout: number;
  /** `innodb_lock_wait_timeout`, in seconds. */
  readonly lockWait: number;
  readonly maxRetries: number;
  readonly poolSize: number;
  readonly syncWait: number;
  readonly migrate: boolean;
  /** False when the caller turned MariaDB's anonymous blocks off (`compoundStatements: false`). */
  readonly compoundStatements: boolean;
}

/** Reads the URL's store options (the explicit ones win) and applies the defaults; a bad URL throws `store_config` or `store_schema`. */
export function resolveSettings(databaseUrl: string, storeOptions: MySqlStoreOptions): Settings {
  const { url, options: fromUrl } = splitStoreUrl(databaseUrl);
  const options: MySqlStoreOptions = { ...fromUrl, ...storeOptions };
  databaseName(url);
  const queryTimeout = options.queryTimeoutMs ?? 10_000;
  return {
    url,
    connectTimeout: options.connectTimeoutMs ?? 1000,
    probeAfterMs: Math.max(1, Math.trunc(options.probeAfterMs ?? 1000)),
    queryTimeout,
    acquireTimeout: options.acquireTimeoutMs ?? queryTimeout,
    lockWait: Math.max(1, Math.trunc(options.lockWaitTimeoutSeconds ?? 5)),
    maxRetries: Math.max(0, Math.trunc(options.maxRetries ?? 5)),
    poolSize: Math.max(1, Math.trunc(options.poolSize ?? 10)),
    syncWait: Math.max(0, Math.trunc(options.syncWait ?? 1)),
    migrate: options.migrate !== false,
    compoundStatements: options.compoundStatements !== false,
  };
}
