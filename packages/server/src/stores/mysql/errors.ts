/** Stable codes of {@link MySqlStoreError}. */
export type MySqlStoreErrorCode =
  /** The database could not be reached, or the connection broke: retry later. */
  | 'store_unavailable'
  /** A query or the wait for a pooled connection took longer than allowed. */
  | 'store_timeout'
  /** Deadlocks or lock-wait timeouts persisted through every retry. */
  | 'store_busy'
  /** The schema is missing or older than this code, or migration failed. */
  | 'store_schema'
  /** A bad URL or option. */
  | 'store_config';

/**
 * Thrown by the MySQL store when the database cannot do the work (it is down, slow or too
 * busy). A server answers it with `500 internal_error`; the store itself recovers once the
 * database is back, without a restart. The original driver error is the `cause`.
 *
 * @example
 * ```ts
 * try {
 *   await store.transaction((tx) => tx.get('accounts', 'acc_1'));
 * } catch (error) {
 *   if (MySqlStoreError.is(error) && error.code === 'store_unavailable') console.warn('database down');
 * }
 * ```
 */
export class MySqlStoreError extends Error {
  constructor(
    readonly code: MySqlStoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MySqlStoreError';
  }

  /** Works across module copies (ESM and CJS builds loaded together), unlike `instanceof`. */
  static is(error: unknown): error is MySqlStoreError {
    return error instanceof Error && error.name === 'MySqlStoreError' && typeof (error as { code?: unknown }).code === 'string';
  }
}

/** A driver error as mysql2 reports it. */
interface DriverError {
  code?: string;
  errno?: number;
  sqlState?: string;
  fatal?: boolean;
  message?: string;
}

const driver = (error: unknown): DriverError => (typeof error === 'object' && error !== null ? (error as DriverError) : {});

/** MySQL error numbers the store reacts to. */
export const ER_DUP_ENTRY = 1062;
export const ER_LOCK_WAIT_TIMEOUT = 1205;
export const ER_LOCK_DEADLOCK = 1213;

/** A deadlock or lock-wait timeout: the whole unit of work may run again. */
export const isRetryable = (error: unknown): boolean => {
  const errno = driver(error).errno;
  return errno === ER_LOCK_DEADLOCK || errno === ER_LOCK_WAIT_TIMEOUT;
};

export const isDuplicateKey = (error: unknown): boolean => driver(error).errno === ER_DUP_ENTRY;

/**
 * An error the server answered (the connection is still usable), as opposed to a network
 * failure, a timeout or a broken connection (the connection must be thrown away).
 */
export const isServerError = (error: unknown): boolean => {
  const e = driver(error);
  return typeof e.errno === 'number' && typeof e.sqlState === 'string' && e.fatal !== true;
};

/** The key name in a duplicate-key message: `... for key 'uq_x'` (MariaDB) or `'table.uq_x'` (MySQL 8). */
export const duplicateKeyName = (error: unknown): string => {
  const match = /for key '([^']+)'/.exec(driver(error).message ?? '');
  const name = match?.[1] ?? 'PRIMARY';
  return name.slice(name.lastIndexOf('.') + 1);
};

/** Wraps a connection-level failure (not a server answer) in a {@link MySqlStoreError}. */
export function connectionFailure(error: unknown): MySqlStoreError {
  if (MySqlStoreError.is(error)) return error;
  const e = driver(error);
  const timeout = e.code === 'PROTOCOL_SEQUENCE_TIMEOUT' || e.code === 'ETIMEDOUT' || e.code === 'ACQUIRE_TIMEOUT';
  const what = timeout ? 'timed out' : 'unreachable';
  return new MySqlStoreError(timeout ? 'store_timeout' : 'store_unavailable', `mysql store: database ${what} (${e.code ?? e.message ?? 'unknown error'})`, {
    cause: error,
  });
}
