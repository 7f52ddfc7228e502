import type { LicenseStorage } from './storage.js';

/** A {@link LicenseStorage} held in memory, with the stored text readable for tests. */
export interface MemoryLicenseStorage extends LicenseStorage {
  /** The stored document, or null. */
  readonly text: string | null;
}

/**
 * Storage that lives as long as the object: for tests, and for apps that must not persist anything.
 *
 * @example
 * ```ts
 * const storage = createMemoryStorage();
 * const client = createLicenseClient({ ...options, storage });
 * await client.activate(key);
 * console.log(storage.text); // the stored JSON document
 * ```
 */
/* @__NO_SIDE_EFFECTS__ */
export function createMemoryStorage(initial: string | null = null): MemoryLicenseStorage {
  let text = initial;
  return {
    get text() {
      return text;
    },
    read: () => text,
    write: (next: string) => {
      text = next;
    },
  };
}
