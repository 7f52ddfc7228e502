import type { LicenseStorage } from './storage.js';

/** The part of the Web Storage API the adapter uses (`localStorage`, `sessionStorage`, or a stand-in). */
export interface WebStorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** Options of {@link createLocalStorage}. */
export interface LocalStorageOptions {
  /** The item name; default `svc-licensing:license`. Use one name per product. */
  key?: string;
  /** The Web Storage to use; default `globalThis.localStorage`. */
  storage?: WebStorageLike;
}

/**
 * Storage in the browser's `localStorage` (web apps, Electron renderers): one item holding the
 * JSON document. `setItem` replaces the item at once, so a write is atomic. A full quota makes
 * `setItem` throw; the client reports that as `storage_error`.
 *
 * @example
 * ```ts
 * const storage = createLocalStorage({ key: 'my-app:license' });
 * const client = createLicenseClient({ ...options, storage });
 * ```
 */
/* @__NO_SIDE_EFFECTS__ */
export function createLocalStorage(options: LocalStorageOptions = {}): LicenseStorage {
  const key = options.key ?? 'svc-licensing:license';
  const resolve = (): WebStorageLike => {
    const storage = options.storage ?? (globalThis as { localStorage?: WebStorageLike }).localStorage;
    if (!storage) throw new TypeError('createLocalStorage: no localStorage in this runtime; pass options.storage');
    return storage;
  };
  return {
    read: () => resolve().getItem(key),
    write: (text: string) => resolve().setItem(key, text),
  };
}
