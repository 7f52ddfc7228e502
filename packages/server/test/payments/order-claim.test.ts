import { describe, expect, it } from 'vitest';
import { STORE_KINDS, type StoreKind } from '../support/stores.js';
import { createWorld, eventA, fixtureJson, type Answer, type World } from '../support/payment-world.js';

// Two different provider events for one order (two event IDs of one provider_a transaction, or
// provider_b's order delivered again with a newer `updated_at`) processed at the same time must
// end in one license: before the order claim, both transactions saw no license of the order and
// each created one (two keys e-mailed for one purchase). On MariaDB the deliveries go to two
// servers on two connection pools, as two processes of one deployment; the embedded store is
// owned by one process (it runs one transaction at a time), so there they all go to that server.

const ROUNDS = 20;

/**
 * A world over HTTP on a fresh store of `kind`. On MariaDB two servers on two pools of their own,
 * without deadlock retries (`maxRetries: 0`), so a claim that deadlocks shows as a 500.
 */
async function world(kind: StoreKind): Promise<World & { peers: boolean }> {
  const peers = kind === 'mysql';
  return Object.assign(await createWorld({ mode: 'node-server', store: kind }, { peer: peers, store: { mysql: { maxRetries: 0 } } }), { peers });
}

/** 2, 3 or 4 deliveries of one order, each a different event, all at once (every other one through the peer server). */
async function race(w: World & { peers: boolean }, round: number, body: (i: number) => Record<string, unknown>, provider: 'provider_a' | 'provider_b') {
  const n = 2 + (round % 3);
  const answers: Answer[] = await Promise.all(
    Array.from({ length: n }, (_, i) => w.deliver(provider, body(i), { peer: w.peers && i % 2 === 1 })),
  );
  expect(answers.map((a) => a.status), JSON.stringify(answers.map((a) => a.body))).toEqual(Array(n).fill(200));
  expect(answers.filter((a) => a.body.result === 'processed')).toHaveLength(1);
  for (const a of answers.filter((x) => x.body.result !== 'processed')) {
    expect(a.body).toMatchObject({ result: 'ignored', detail: expect.stringMatching(/^order \S+ already has license lic_/) });
  }
  return n;
}

/** Every order has exactly one license: each delivery's audit event names the same one, and there is one license and one key e-mail per order. */
async function expectOneLicensePerOrder(w: World, orders: Map<string, number>) {
  const licenses = await w.licenses();
  expect(licenses).toHaveLength(orders.size);
  const webhooks = await w.events('webhook.received');
  for (const [order, deliveries] of orders) {
    const mine = webhooks.filter((e) => /\border (\S+)/.exec(String(e.data.detail))?.[1] === order);
    expect(mine, order).toHaveLength(deliveries);
    expect(new Set(mine.map((e) => e.license)).size, order).toBe(1);
    expect(licenses.map((l) => l.id)).toContain(mine[0]!.license);
  }
  const mails = await w.smtp.waitFor(orders.size);
  expect(mails).toHaveLength(orders.size);
  const keys = await Promise.all(licenses.map(async (l) => (await w.api('GET', `/licenses/${l.id}`)).body.key as string));
  for (const key of keys) expect(mails.filter((m) => String(m.mail.text).includes(key))).toHaveLength(1);
}

describe.each(STORE_KINDS)('one license per order when its events race (%s store)', (kind) => {
  it(`provider_a: ${ROUNDS} transactions, each completed under 2 to 4 event IDs at once`, async () => {
    const w = await world(kind);
    expect((await w.deliver('provider_a', 'customer.created')).status).toBe(200);
    const orders = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      const order = `txn_claim_${round}`;
      const body = (i: number) => {
        const event = eventA('transaction.completed', { eventId: `evt_claim_${round}_${i}` });
        event.data.id = order;
        return event;
      };
      orders.set(order, await race(w, round, body, 'provider_a'));
    }
    await expectOneLicensePerOrder(w, orders);
  });

  it(`provider_b: ${ROUNDS} orders, each delivered at once with 2 to 4 different update times (event IDs)`, async () => {
    const w = await world(kind);
    const orders = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      const order = String(4_500_000 + round);
      const body = (i: number) => {
        const event = fixtureJson('provider_b', 'order_created');
        event.data.id = order;
        event.data.attributes.updated_at = `2024-06-03T09:12:${String(46 + i)}.000000Z`;
        return event;
      };
      orders.set(order, await race(w, round, body, 'provider_b'));
    }
    await expectOneLicensePerOrder(w, orders);
  });
});
