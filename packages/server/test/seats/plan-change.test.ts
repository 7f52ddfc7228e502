import { expect, it } from 'vitest';
import { machineFingerprint } from '@svc-licensing/cert-format';
import { createWorld, eventA, PRICES } from '../support/payment-world.js';
import { describeEveryStore } from '../support/harness.js';

const FLOAT_PRICE = 'pri_floating_team';

describeEveryStore('floating seats: plan changes by webhook', (setup) => {
  it('machine to floating leases every machine from now; floating to machine keeps live leases as machines and removes lapsed rows', async () => {
    const w = await createWorld(setup);
    await w.api('POST', `/products/${w.productId}/plans`, { code: 'float', kind: 'subscription', seatMode: 'floating', maxActivations: 2, leaseSeconds: 600, maxBorrowDays: 5 });
    const map = (await w.api('GET', `/integrations/${w.integrationA}`)).body.priceMap;
    expect((await w.api('PATCH', `/integrations/${w.integrationA}`, { priceMap: { ...map, [FLOAT_PRICE]: 'float' } })).status).toBe(200);
    await w.deliver('provider_a', 'customer.created');
    expect((await w.deliver('provider_a', 'transaction.completed.subscription')).status).toBe(200);
    const [item] = await w.licenses();
    const license = (await w.api('GET', `/licenses/${item.id}`)).body;
    const machine = (name: string) => ({ product: w.productId, key: license.key, fingerprint: machineFingerprint(w.productId, name) });
    for (const name of ['desk', 'laptop']) expect((await w.client('activate', machine(name))).status).toBe(200);

    const toFloating = eventA('subscription.updated', { eventId: 'evt_to_floating', occurredAt: '2024-04-20T09:00:00.000000Z' });
    toFloating.data.status = 'active';
    toFloating.data.items[0].price.id = FLOAT_PRICE;
    toFloating.data.items[0].quantity = 1;
    expect((await w.deliver('provider_a', toFloating)).body.result).toBe('processed');
    const leased = (await w.api('GET', `/licenses/${license.id}`)).body;
    const end = new Date(Math.floor(w.clock.now() / 1000) * 1000 + 600_000).toISOString().replace('.000Z', 'Z');
    expect(leased).toMatchObject({ plan: 'float', seatMode: 'floating', liveLeases: 2, activationCount: 2 });
    expect(leased.activations.map((a: any) => [a.leaseState, a.leaseExpiresAt])).toEqual([['live', end], ['live', end]]);
    // The machines keep working: a heartbeat answers with the lease.
    expect((await w.client('validate', machine('laptop'))).body.lease).toMatchObject({ leaseSeconds: 600 });

    // The laptop borrows; the desk stops calling and lapses.
    expect((await w.harness.client('borrow', { ...machine('laptop'), days: 2 })).status).toBe(200);
    w.clock.advance(700_000);
    expect((await w.api('GET', `/licenses/${license.id}`)).body.activations.map((a: any) => a.leaseState)).toEqual(['lapsed', 'borrowed']);

    const toMachine = eventA('subscription.updated', { eventId: 'evt_to_machine', occurredAt: '2024-04-21T09:00:00.000000Z' });
    toMachine.data.status = 'active';
    toMachine.data.items[0].price.id = PRICES.a.team;
    expect((await w.deliver('provider_a', toMachine)).body.result).toBe('processed');
    const back = (await w.api('GET', `/licenses/${license.id}`)).body;
    expect(back).toMatchObject({ plan: 'team', seatMode: 'machine', liveLeases: null, activationCount: 1 });
    expect(back.activations).toEqual([
      expect.objectContaining({ fingerprint: machine('laptop').fingerprint, leaseExpiresAt: null, borrowedUntil: null, leaseState: null }),
    ]);
    const validated = await w.client('validate', machine('laptop'));
    expect(Object.keys(validated.body).sort()).toEqual(['certificate', 'revocationListSeq']); // no lease: a machine now
    expect((await w.client('validate', machine('desk'))).body.error.code).toBe('not_activated');
    const events = await w.events();
    expect(events.filter((e) => e.type === 'lease.returned').map((e) => e.data.source)).toEqual(['plan_change']);
    expect(events.filter((e) => e.type === 'activation.deleted').map((e) => [e.data.fingerprint, e.data.source])).toEqual([
      [machine('desk').fingerprint, 'plan_change'],
    ]);
  });
});
