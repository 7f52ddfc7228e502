import { createMySqlStore } from '../../src/stores/mysql/index.js';

/** A row lock held by a unit of work of a second store, until released. */
export interface HeldRowLock {
  /** Lets the holding unit commit (the lock goes with it). */
  release(): void;
  /** Releases the lock, waits for the holding unit to end and closes its store. */
  end(): Promise<void>;
}

/**
 * Locks the counter `id` (`SELECT ... FOR UPDATE`) from a unit of work of another store over `url`
 * (one connection) and resolves once the lock is held, so a statement of the store under test that
 * wants the same row waits for it.
 */
export async function holdRowLock(url: string, id: string): Promise<HeldRowLock> {
  const blocker = createMySqlStore(url, { poolSize: 1 });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holding = blocker.transaction(async (tx) => {
    await tx.get('counters', id, { lock: true });
    locked();
    await released;
  });
  await isLocked;
  return {
    release,
    async end() {
      release();
      await holding;
      await blocker.close();
    },
  };
}
