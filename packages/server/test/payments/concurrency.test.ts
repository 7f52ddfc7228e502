import { expect, it } from 'vitest';
import { DEFAULT_SERVICE_PLANS } from '@svc-licensing/license-engine';
import { describeEveryStore } from '../support/harness.js';
import { createWorld, eventA } from '../support/payment-world.js';

// Deliveries at once: on the embedded store one process runs their transactions one at a time; on
// MariaDB they really interleave (row locks, gap locks, deadlock retries).
const store = { mysql: { poolSize: 8 } };

describeEveryStore('concurrent webhook deliveries', (setup) => {
  it('one event delivered eight times at once: one license, one e-mail, seven duplicates', async () => {
    const w = await createWorld(setup, { store });
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
    const w = await createWorld(setup, { store });
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
    const w = await createWorld(setup, {
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
    const w = await createWorld(setup, { store });
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

  it('32 new purchases at once, each a new customer, all answer 200 (on MariaDB without a single deadlock retry)', async () => {
    // No retries: before the claims became insert-first, locking reads of missing rows (processed
    // event, provider customer, customer, e-mail reservation) took gap locks that neighbouring
    // deliveries deadlocked on, and some of these answered 500.
    const w = await createWorld(setup, { store: { mysql: { poolSize: 16, maxRetries: 0 } } });
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
    // Every key e-mail's reservation ended before its answer (most with another purchase's commit):
    // a send-key of each license right after goes through, none waits for the reservation to expire.
    const resent = await Promise.all(licenses.map((l) => w.api('POST', `/licenses/${l.id}/send-key`)));
    expect(resent.map((r) => r.status)).toEqual(Array(32).fill(200));
    const mails = await w.smtp.waitFor(64);
    expect(new Set(mails.map((m) => m.envelope.to[0])).size).toBe(32);
  });

  it('one new subscription paid under eight event IDs at once: every delivery 200, one license, one key e-mail', async () => {
    // Each event finds no license following the subscription (an unlocked read) and would create
    // one: the subscription's claim lets one unit create it, and the others run again and find it.
    const w = await createWorld(setup, { store: { mysql: { poolSize: 16, maxRetries: 0 } } });
    await w.deliver('provider_a', 'customer.created');
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => w.deliver('provider_a', eventA('transaction.completed.subscription', { eventId: `evt_same_subscription_${i}` }))),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    // One creates the license; each other one applies to it as a later payment or is ignored as an earlier one.
    expect(answers.every((a) => a.body.result === 'processed' || a.body.result === 'ignored')).toBe(true);
    expect(answers.filter((a) => /^license created/.test(a.body.detail))).toHaveLength(1);
    const licenses = await w.licenses();
    expect(licenses).toHaveLength(1);
    expect(licenses[0].paidUntil).toBe('2024-05-12T10:37:59Z');
    await w.smtp.waitFor(1);
    expect(w.smtp.messages).toHaveLength(1);
  });

  it('two new subscriptions of one customer and plan at once after the old one ended: one reuses its license, the other gets a new one', async () => {
    const w = await createWorld(setup, { store: { mysql: { poolSize: 16, maxRetries: 0 } } });
    await w.deliver('provider_a', 'customer.created');
    await w.deliver('provider_a', 'transaction.completed.subscription');
    const [old] = await w.licenses();
    w.clock.set('2024-06-20T00:00:00Z'); // the paid period (to 2024-05-12) and its grace have passed
    const renewal = (i: number) => {
      const body = eventA('transaction.completed.subscription', { eventId: `evt_again_${i}`, occurredAt: '2024-06-20T00:00:00Z' });
      body.data.id = `txn_again_${i}`;
      body.data.subscription_id = `sub_again_${i}`;
      body.data.billing_period = { starts_at: '2024-06-20T00:00:00Z', ends_at: '2024-07-20T00:00:00Z' };
      return w.deliver('provider_a', body);
    };
    const answers = await Promise.all([renewal(1), renewal(2)]);
    expect(answers.map((a) => [a.status, a.body.result])).toEqual([
      [200, 'processed'],
      [200, 'processed'],
    ]);
    const licenses = await w.licenses();
    expect(licenses).toHaveLength(2);
    expect(licenses.map((l) => l.paidUntil)).toEqual(['2024-07-20T00:00:00Z', '2024-07-20T00:00:00Z']);
    expect(licenses.map((l) => l.id)).toContain(old.id);
  });

  it('32 new subscription purchases at once, each a new customer, all answer 200 (on MariaDB without a single deadlock retry)', async () => {
    // A subscription's transaction.completed (a subscription_id, a billing period, a price mapped
    // to a subscription plan) creates its license. Its locking reads of rows that did not exist
    // (the subscription's license, the customer's licenses of the plan) locked index gaps (the
    // licenses' primary key and customer index, where every new license goes), and neighbouring
    // purchases inserting their licenses deadlocked on each other's gap: with the store's retries
    // one or two deliveries of a 6-second benchmark run answered 500; without, most of them here.
    const w = await createWorld(setup, { store: { mysql: { poolSize: 16, maxRetries: 0 } } });
    const purchase = async (i: number) => {
      const customer = eventA('customer.created', { eventId: `evt_sc_${i}` });
      customer.data.id = `ctm_sub_${i}`;
      customer.data.email = `subscriber${i}@example.com`;
      const order = eventA('transaction.completed.subscription', { eventId: `evt_st_${i}` });
      order.data.id = `txn_sub_${i}`;
      order.data.customer_id = `ctm_sub_${i}`;
      order.data.subscription_id = `sub_${i}`;
      return [(await w.deliver('provider_a', customer)).status, (await w.deliver('provider_a', order)).status];
    };
    const statuses = (await Promise.all(Array.from({ length: 32 }, (_, i) => purchase(i)))).flat();
    expect(statuses).toEqual(Array(64).fill(200));
    const licenses = await w.licenses();
    expect(licenses).toHaveLength(32);
    // Each the subscription's license: the mapped subscription plan, paid to the billing period's end.
    expect(new Set(licenses.map((l) => `${l.plan} ${l.status} ${l.paidUntil}`))).toEqual(new Set(['pro active 2024-05-12T10:37:59Z']));
    expect(new Set(licenses.map((l) => l.customer.email)).size).toBe(32);
    await w.smtp.waitFor(32);
  });
});
