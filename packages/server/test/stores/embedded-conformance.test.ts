import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStorage } from 'unstorage';
import { testStore } from '@svc-licensing/license-engine/testing';
import { createEmbeddedStore, openEmbeddedStore } from '../../src/stores/embedded/index.js';

const folders = new WeakMap<object, string>();

testStore('embedded (fs driver, data folder with journal)', {
  async create() {
    const dir = await mkdtemp(join(tmpdir(), 'svc-conformance-'));
    const store = await openEmbeddedStore(dir);
    folders.set(store, dir);
    return store;
  },
  async destroy(store) {
    await store.close();
    await rm(folders.get(store)!, { recursive: true, force: true });
  },
});

testStore('embedded (memory driver)', {
  create: () => createEmbeddedStore({ storage: createStorage() }),
});
