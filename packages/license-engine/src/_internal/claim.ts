import { StoreConflictError } from './store.js';

/**
 * The record `read` finds by a unique key (or id), locked for the rest of the transaction; or, when
 * there is none, `insert()` runs and `null` is returned (the caller's new record is the one stored).
 *
 * Why not a locking read followed by an insert: on a SQL store a locking read of a row that does
 * not exist locks the index *gap* where it would go, and two transactions inserting neighbouring
 * keys then deadlock on each other's gap (measured: every deadlock of 32 concurrent webhook
 * purchases on MariaDB was this). Here a missing row is never locked: an unlocked read, then the
 * insert; a concurrent insert of the same key makes ours wait and then clash, and the clash is
 * answered by a locking read of the row the other transaction committed. An existing row is
 * locked by its unique key, which locks that one row.
 */
export async function lockOrInsert<T>(
  read: (options?: { lock: true }) => Promise<T | null>,
  insert: () => Promise<void>,
  options: { usuallyMissing?: boolean } = {},
): Promise<T | null> {
  // `usuallyMissing`: straight to the insert, one round trip fewer when the row is new (a clash
  // still ends in the locking read below).
  if (!options.usuallyMissing && (await read())) {
    const locked = await read({ lock: true });
    if (locked) return locked;
  }
  try {
    await insert();
    return null;
  } catch (error) {
    if (!StoreConflictError.is(error)) throw error;
    const winner = await read({ lock: true });
    if (!winner) throw error;
    return winner;
  }
}
