import { expect, it } from 'vitest';
import type { Store, StoreTx } from '../_internal/store.js';
import { createSamples } from './records.js';
import { NOW, fingerprint, repeatingKeys, setup } from './engine-cases.js';

const T = 1_900_000_000_000;

/** The notification outbox: the due deliveries' read, concurrent claims, and deliveries written with the change that causes them. */
export function outboxCases(store: () => Store): void {
  const sample = createSamples();
  const run = <T>(work: (tx: StoreTx) => Promise<T>) => store().transaction(work);

  it('dueDeliveries returns the pending deliveries due at now, soonest first, up to the limit', async () => {
    const due = [T - 5, T - 30, T, T - 10].map((dueAt) => sample('notificationDeliveries', { dueAt }));
    const others = [
      sample('notificationDeliveries', { dueAt: T + 1 }),
      sample('notificationDeliveries', { dueAt: null }), // parked
      sample('notificationDeliveries', { dueAt: null, state: 'delivered' }),
      sample('notificationDeliveries', { dueAt: T - 100, state: 'failed' }),
    ];
    await run(async (tx) => {
      for (const d of [...due, ...others]) await tx.insert('notificationDeliveries', d);
    });
    const order = [...due].sort((a, b) => (a.dueAt as number) - (b.dueAt as number));
    expect(await run((tx) => tx.dueDeliveries({ now: T, limit: 10 }))).toEqual(order);
    expect((await run((tx) => tx.dueDeliveries({ now: T, limit: 2 }))).map((d) => d.id)).toEqual(order.slice(0, 2).map((d) => d.id));
    expect(await run((tx) => tx.dueDeliveries({ now: T - 31, limit: 10 }))).toEqual([]);
  });

  it('concurrent claims of due deliveries never give one delivery twice', async () => {
    const { engine, account } = await setup(store());
    const endpoint = await engine.createWebhookEndpoint(account.id, { url: 'https://hooks.conformance.test/svc' });
    await run(async (tx) => {
      for (let i = 0; i < 60; i++) {
        await tx.insert('notificationDeliveries', sample('notificationDeliveries', { accountId: account.id, endpointId: endpoint.id, dueAt: NOW - 1000 + i }));
      }
    });
    const batches = await Promise.all(Array.from({ length: 6 }, () => engine.claimDueDeliveries({ now: NOW, limit: 15, leaseMs: 60_000 })));
    const ids = batches.flat().map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(60);
    expect(batches.flat().every((d) => d.url === 'https://hooks.conformance.test/svc' && d.signingSecrets[0] === endpoint.secret)).toBe(true);
    expect(await engine.claimDueDeliveries({ now: NOW + 59_999, limit: 100, leaseMs: 60_000 })).toEqual([]);
  });

  it('getMany, where the store has it, returns what get returns for each id, in the order asked, null for a missing one', async () => {
    const deliveries = [T - 5, T - 30, T].map((dueAt) => sample('notificationDeliveries', { dueAt }));
    await run(async (tx) => {
      for (const d of deliveries) await tx.insert('notificationDeliveries', d);
    });
    const ids = [deliveries[2]!.id, 'msg_missing', deliveries[0]!.id, deliveries[1]!.id];
    const many = await run(async (tx) => (tx.getMany ? tx.getMany('notificationDeliveries', ids, { lock: true }) : null));
    if (many === null) return;
    expect(many).toEqual([deliveries[2], null, deliveries[0], deliveries[1]]);
    expect(await run(async (tx) => tx.getMany!('notificationDeliveries', []))).toEqual([]);
    // reads see the unit's own writes
    const changed = { ...deliveries[1]!, dueAt: T + 99 };
    expect(await run(async (tx) => {
      await tx.update('notificationDeliveries', changed, { defer: true });
      return tx.getMany!('notificationDeliveries', [changed.id]);
    })).toEqual([changed]);
  });

  it('concurrent batches recording the same claimed attempts record each delivery once', async () => {
    const { engine, account } = await setup(store());
    const endpoint = await engine.createWebhookEndpoint(account.id, { url: 'https://hooks.conformance.test/svc' });
    await run(async (tx) => {
      for (let i = 0; i < 20; i++) {
        await tx.insert('notificationDeliveries', sample('notificationDeliveries', { accountId: account.id, endpointId: endpoint.id, dueAt: NOW - 1000 + i, attempts: [] }));
      }
    });
    const claimed = await engine.claimDueDeliveries({ now: NOW, limit: 20, leaseMs: 60_000 });
    expect(claimed).toHaveLength(20);
    const inputs = claimed.map((c) => ({
      deliveryId: c.id, claimToken: c.claimToken, outcome: { kind: 'delivered' as const },
      attempt: { at: NOW, ok: true, status: 204, latencyMs: 3, responseBody: '', errorCode: null, errorMessage: null },
    }));
    // four dispatchers record overlapping batches at once, in different orders
    const orders = [inputs, [...inputs].reverse(), [...inputs.slice(10), ...inputs.slice(0, 10)], inputs.filter((_, i) => i % 2 === 0)];
    const results = await Promise.all(orders.map((batch) => engine.recordDeliveryAttempts(batch)));
    expect(results.flat().filter((r) => r.recorded)).toHaveLength(20);
    const stored = await run((tx) => tx.findMany('notificationDeliveries', { endpointId: endpoint.id }));
    expect(stored.map((d) => [d.state, d.attempts.length, d.claim])).toEqual(stored.map(() => ['delivered', 1, null]));
  });

  it('an audited change queues one delivery per subscribed endpoint in its own unit: none when it rolls back, none without endpoints', async () => {
    const { engine, account, plan } = await setup(store());
    const paidUntil = '2030-12-31T00:00:00Z';
    await engine.createLicense(account.id, { plan: plan.id, email: 'before@conformance.test', paidUntil });
    const count = () => run((tx) => tx.count('notificationDeliveries', { accountId: account.id }));
    expect(await count()).toBe(0);
    const all = await engine.createWebhookEndpoint(account.id, { url: 'https://all.conformance.test/' });
    const some = await engine.createWebhookEndpoint(account.id, { url: 'https://some.conformance.test/', events: ['activation.created'] });
    const { license } = await engine.createLicense(account.id, { plan: plan.id, email: 'after@conformance.test', paidUntil });
    const queued = await run((tx) => tx.findMany('notificationDeliveries', { accountId: account.id }));
    expect(queued.map((d) => [d.endpointId, d.type])).toEqual([[all.id, 'license.created']]);
    const body = JSON.parse(queued[0]!.body);
    expect(body).toMatchObject({ type: 'license.created', timestamp: new Date(NOW).toISOString() });
    expect(body.data).toMatchObject({ id: license.id, status: 'active', customer: { email: 'after@conformance.test' }, event: { type: 'license.created', license: license.id } });
    expect(body.data.event.id).toBe(queued[0]!.eventId);
    expect(body.data.key).toBeUndefined();
    await engine.activate({ product: license.product, key: license.key, fingerprint: fingerprint(7) });
    expect((await run((tx) => tx.findMany('notificationDeliveries', { endpointId: some.id }))).map((d) => d.type)).toEqual(['activation.created']);
    // A disabled endpoint gets nothing more.
    const before = await count();
    await engine.updateWebhookEndpoint(account.id, all.id, { enabled: false });
    await engine.suspendLicense(account.id, license.id);
    expect(await count()).toBe(before);
  });

  it('a unit rolled back after its audit event leaves no notification: its rerun queues exactly one', async () => {
    // The second license's first key repeats the first one's: its unit audits, queues, then fails on
    // the key's unique index (at the insert or at the commit), and runs again with a new key.
    const keys = repeatingKeys();
    const { engine, account, plan } = await setup(store(), undefined, keys.random);
    const endpoint = await engine.createWebhookEndpoint(account.id, { url: 'https://all.conformance.test/' });
    const first = await engine.createLicense(account.id, { plan: plan.id, email: 'first@conformance.test', paidUntil: '2030-12-31T00:00:00Z' });
    keys.repeatFirst = true;
    const second = await engine.createLicense(account.id, { plan: plan.id, email: 'second@conformance.test', paidUntil: '2030-12-31T00:00:00Z' });
    expect(keys.repeatFirst).toBe(false);
    const queued = await run((tx) => tx.findMany('notificationDeliveries', { endpointId: endpoint.id }));
    const events = await run((tx) => tx.findMany('auditEvents', { accountId: account.id, type: 'license.created' }));
    expect(queued.map((d) => JSON.parse(d.body).data.id)).toEqual([first.license.id, second.license.id]);
    expect(queued.map((d) => d.eventId)).toEqual(events.map((e) => e.id));
  });
}
