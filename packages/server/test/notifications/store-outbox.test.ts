import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIdGenerator, createLicenseEngine, createSecretBox, cryptoRandom } from '@svc-licensing/license-engine';
import type { Store } from '@svc-licensing/license-engine';
import { createStoreOutbox } from '../../src/notifications/index.js';
import { openEmbeddedStore } from '../../src/stores/embedded/index.js';
import { createMySqlStore, migrate } from '../../src/stores/mysql/index.js';
import { createTestDatabase } from '../support/mysql-database.js';
import { testOutboxPort } from './outbox-port-conformance.js';
import type { OutboxHarness } from './outbox-port-conformance.js';

// The outbox port over the engine and a real store, where the deliveries are the ones the engine
// writes with each audited change: the same conformance suite as the in-memory reference.

const AT = '2025-06-01T12:00:00Z';

async function harness(store: Store, dispose: () => Promise<void>): Promise<OutboxHarness> {
  const secrets = createSecretBox(new Uint8Array(32).fill(3));
  const engine = createLicenseEngine({ store, secrets, ids: createIdGenerator({ clock: { now: () => Date.now() }, random: cryptoRandom }) });
  const { account } = await engine.createAccount({ name: 'Outbox', ownerEmail: 'owner@outbox.test' });
  const seal = (secret: string, id: string) => secrets.encrypt(new TextEncoder().encode(secret), { purpose: 'notification-secret', record: id });
  return {
    port: createStoreOutbox(engine),
    async addEndpoint({ id, url, secrets: signing }) {
      await store.transaction(async (tx) => {
        await tx.insert('webhookEndpoints', {
          id, accountId: account.id, url, description: '', events: [], enabled: true, disabledReason: null, secret: seal(signing.current, id),
          previousSecret: signing.previous === null ? null : { secret: seal(signing.previous.secret, id), expiresAt: signing.previous.expiresAt },
          lastSuccessAt: null, createdAt: AT, updatedAt: AT,
        });
        const current = await tx.get('accounts', account.id);
        await tx.update('accounts', { ...current!, webhookSubscriptions: [...(current!.webhookSubscriptions ?? []), { endpoint: id, events: [] }] });
      });
    },
    async enqueue({ id, endpointId, body, dueAt }) {
      await store.transaction((tx) =>
        tx.insert('notificationDeliveries', {
          id, accountId: account.id, endpointId, eventId: null, type: 'license.created', body, state: 'pending', dueAt, nextAttemptAt: dueAt,
          roundAttempts: 0, firstAttemptAt: null, attempts: [], claim: null, createdAt: AT, updatedAt: AT,
        }),
      );
    },
    async delivery(id) {
      const d = await store.transaction((tx) => tx.get('notificationDeliveries', id));
      return d === null ? undefined : { state: d.state, nextAttemptAt: d.nextAttemptAt, firstAttemptAt: d.firstAttemptAt, attempts: d.attempts as never };
    },
    async endpoint(id) {
      const e = await store.transaction((tx) => tx.get('webhookEndpoints', id));
      return e === null ? undefined : { enabled: e.enabled, disabledReason: e.disabledReason };
    },
    close: dispose,
  };
}

testOutboxPort('engine over the embedded store', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-outbox-'));
  const store = await openEmbeddedStore(dir);
  return harness(store, async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
});

testOutboxPort('engine over MariaDB', async () => {
  const db = await createTestDatabase('outbox');
  await migrate(db.url);
  const store = createMySqlStore(db.url);
  await store.ready();
  return harness(store, async () => {
    await store.close();
    await db.drop();
  });
});
