import { createMemoryStore } from '@svc-licensing/license-engine';
import { testStore } from '@svc-licensing/license-engine/testing';

testStore('memory', { create: async () => createMemoryStore() });
