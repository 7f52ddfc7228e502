import { afterEach, beforeEach, describe } from 'vitest';
import type { Store } from './_internal/store.js';
import { clientReadCases } from './testing/client-reads.js';
import { engineCases } from './testing/engine-cases.js';
import { concurrencyCases, readCases } from './testing/concurrency.js';
import { pagingCases, queryCases } from './testing/queries.js';
import { transactionCases } from './testing/transactions.js';
import { outboxCases } from './testing/outbox.js';
import { incomingCases } from './testing/incoming.js';
import { revocationCases } from './testing/revocations.js';

/** How the conformance suite gets a store: a new, EMPTY store per test, and how to dispose of it. */
export interface StoreFactory {
  create: () => Promise<Store>;
  /** Disposes of the store after each test; `store.close()` when omitted. */
  destroy?: (store: Store) => Promise<void>;
}

/**
 * The store conformance suite every adapter runs (vitest): every query and filter of
 * `storeSchema`, unique keys, atomicity, locking, paging under concurrent inserts, and the
 * concurrency cases through the engine (parallel activations never exceed the limit; a revoke
 * racing payments ends revoked; one provider event delivered many times at once is processed once),
 * read-only units, `readClientLicense` (when the adapter has it) against the separate reads, and the
 * notification outbox (due deliveries, concurrent claims, deliveries written with their change), and
 * the incoming delivery log (concurrent additions to one group), and revocation lists (changes racing
 * on one product never share a seq).
 *
 * @example
 * ```ts
 * // test/memory-store.test.ts
 * import { createMemoryStore } from '@svc-licensing/license-engine';
 * import { testStore } from '@svc-licensing/license-engine/testing';
 *
 * testStore('memory', { create: async () => createMemoryStore() });
 * ```
 */
export function testStore(name: string, factory: StoreFactory): void {
  describe(`store conformance: ${name}`, () => {
    let store: Store | null = null;
    const current = (): Store => {
      if (!store) throw new Error('the store is created before each test');
      return store;
    };
    beforeEach(async () => {
      store = await factory.create();
    });
    afterEach(async () => {
      const done = store;
      store = null;
      if (!done) return;
      if (factory.destroy) await factory.destroy(done);
      else await done.close();
    });
    describe('queries', () => {
      queryCases(current);
      pagingCases(current);
    });
    describe('transactions', () => {
      transactionCases(current);
      readCases(current);
      concurrencyCases(current);
    });
    describe('engine concurrency', () => engineCases(current));
    describe('client reads', () => clientReadCases(current));
    describe('notification outbox', () => outboxCases(current));
    describe('incoming delivery log', () => incomingCases(current));
    describe('revocation lists', () => revocationCases(current));
  });
}
