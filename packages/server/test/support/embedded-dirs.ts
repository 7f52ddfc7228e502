import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { openEmbeddedStore } from '../../src/stores/embedded/index.js';
import type { EmbeddedStore } from '../../src/stores/embedded/index.js';

/**
 * Data folders and embedded stores of one test file, closed and removed after each test: `tempDir()`
 * makes a folder under the OS temp dir named with `prefix`, `open(dir)` opens the store in it, and
 * `track(store)` closes a store the test opened itself.
 */
export function useEmbeddedDirs(prefix: string): {
  tempDir: () => Promise<string>;
  open: (dir: string) => Promise<EmbeddedStore>;
  track: (store: EmbeddedStore) => EmbeddedStore;
} {
  const dirs: string[] = [];
  const stores: EmbeddedStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close().catch(() => undefined);
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });
  return {
    async tempDir() {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    async open(dir) {
      const store = await openEmbeddedStore(dir);
      stores.push(store);
      return store;
    },
    track(store) {
      stores.push(store);
      return store;
    },
  };
}
