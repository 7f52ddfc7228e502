import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SERVICE_PLANS } from '@svc-licensing/license-engine';
import { createMySqlStore, type MySqlStore } from '../src/stores/mysql/index.js';
import { createTestDatabase, type TestDatabase } from './support/mysql-database.js';
import { createWorld, eventA } from './support/payment-world.js';

// The same deliveries as the memory-store tests, against MariaDB, where concurrent transactions
// really interleave (row locks, gap locks, deadlock retries).
let db: TestDatabase;
let store: MySqlStore;
beforeAll(async () => {
  db = await createTestDatabase('webhooks');
  store = createMySqlStore(db.url, { poolSize: 8 });
  await store.ready();
});
afterAll(async () => {
  await store?.close();
  await db?.drop();
});

describe('concurrent webhook deliveries on MariaDB', () => {
  it('one event delivered eight times at once: one license, one e-mail, seven duplicates', async () => {
    const w = await createWorld({ store });
    await w.deliver('provider_a', 'customer.created');
    const answers = await Promise.all(Array.from({ length: 8 }, () => w.deliver('provider_a', 'transaction.completed.subscription')));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(answers.filter((a) => a.body.result === 'processed')).toHaveLength(1);
    expect(answers.filter((a) => a.body.result === 'duplicate')).toHaveLength(7);
    const licenses = (await w.licenses()).filter((l) => l.product === w.productId);
    expect(licenses).toHaveLength(1);
    await w.smtp.waitFor(1);
    expect(w.smtp.messages).toHaveLength(1);
  });

  it('status events delivered at once end in the newest one’s status', async () => {
    const w = await createWorld({ store });
    await w.deliver('provider_a', 'customer.created');
    await w.deliver('provider_a', 'transaction.completed.subscription');
    w.clock.set('2024-05-12T11:00:00Z');
    const events = ['subscription.past_due', 'subscription.canceled', 'subscription.paused'].map((name) => eventA(name));
    // paused (10:44:16) is the newest of the three.
    await Promise.all(events.map((body) => w.deliver('provider_a', body)));
    const [license] = await w.licenses();
    expect(license.status).toBe('suspended');
  });

  it('new licenses racing for the last e-mail of the hour: exactly one wins, the others get 429 and change nothing', async () => {
    const w = await createWorld({
      store,
      servicePlan: 'one',
      servicePlans: { ...DEFAULT_SERVICE_PLANS, one: { productLimit: null, licenseLimit: null, keyEmailsPerHour: 1 } },
    });
    await w.deliver('provider_a', 'customer.created');
    const orders = Array.from({ length: 4 }, (_, i) => {
      const body = eventA('transaction.completed', { eventId: `evt_race_${i}` });
      body.data.id = `txn_race_${i}`;
      return body;
    });
    const answers = await Promise.all(orders.map((body) => w.deliver('provider_a', body)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(3);
    expect(await w.licenses()).toHaveLength(1);
    await w.smtp.waitFor(1);
    expect(w.smtp.messages).toHaveLength(1);
  });

  it('one new customer announced under several event IDs at once: every delivery 200, one mapping, one customer, and the next purchase finds them', async () => {
    const w = await createWorld({ store });
    // A first delivery: later units of this integration read their customer with their first reads.
    expect((await w.deliver('provider_a', 'customer.created')).status).toBe(200);
    const announce = (i: number) => {
      const body = eventA(i % 2 ? 'customer.updated' : 'customer.created', { eventId: `evt_same_customer_${i}` });
      body.data.id = 'ctm_racing';
      body.data.email = 'racing@example.com';
      body.data.name = 'Racing Buyer';
      return w.deliver('provider_a', body);
    };
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => announce(i)));
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    expect(answers.filter((a) => a.body.result === 'processed')).toHaveLength(6);
    const customers = (await w.api('GET', '/customers?email=racing@example.com')).body.data;
    expect(customers).toHaveLength(1);
    const order = eventA('transaction.completed', { eventId: 'evt_racing_order' });
    order.data.id = 'txn_racing';
    order.data.customer_id = 'ctm_racing';
    const bought = await w.deliver('provider_a', order);
    expect(bought.status).toBe(200);
    expect((await w.licenses()).filter((l) => l.customer.email === 'racing@example.com').map((l) => l.customer.id)).toEqual([customers[0].id]);
  });

  it('32 new purchases at once, each a new customer, all answer 200 without a single deadlock retry', async () => {
    // No retries: before the claims became insert-first, locking reads of missing rows (processed
    // event, provider customer, customer, e-mail reservation) took gap locks that neighbouring
    // deliveries deadlocked on, and some of these answered 500.
    const strict = createMySqlStore(db.url, { poolSize: 16, maxRetries: 0 });
    try {
      const w = await createWorld({ store: strict });
      const purchase = async (i: number) => {
        const customer = eventA('customer.created', { eventId: `evt_c_${i}` });
        customer.data.id = `ctm_${i}`;
        customer.data.email = `buyer${i}@example.com`;
        const order = eventA('transaction.completed', { eventId: `evt_t_${i}` });
        order.data.id = `txn_${i}`;
        order.data.customer_id = `ctm_${i}`;
        return [(await w.deliver('provider_a', customer)).status, (await w.deliver('provider_a', order)).status];
      };
      const statuses = (await Promise.all(Array.from({ length: 32 }, (_, i) => purchase(i)))).flat();
      expect(statuses).toEqual(Array(64).fill(200));
      const licenses = await w.licenses();
      expect(licenses).toHaveLength(32);
      expect(new Set(licenses.map((l) => l.customer.email)).size).toBe(32);
      await w.smtp.waitFor(32);
    } finally {
      await strict.close();
    }
  });
});
