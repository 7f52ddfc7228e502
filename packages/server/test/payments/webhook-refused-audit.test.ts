import { expect, it } from 'vitest';
import { DEFAULT_SERVICE_PLANS } from '@svc-licensing/license-engine';
import { createWorld, eventA, type World } from '../support/payment-world.js';
import { describeEveryStore } from '../support/harness.js';

const tiny = { ...DEFAULT_SERVICE_PLANS, tiny: { productLimit: null, licenseLimit: null, keyEmailsPerHour: 1 } };

const lastDelivery = async (w: World) => (await w.events('webhook.received')).at(-1);

describeEveryStore('webhook.received is logged for deliveries whose processing was refused', (setup) => {
  it('500 customer_unknown: logged, nothing else written, and the retry is processed', async () => {
    const w = await createWorld(setup);
    // The world's own setup (its PATCH /account is audited as account.updated) is not the delivery's.
    const setupEvents = (await w.events()).length; // listed oldest first
    const refused = await w.deliver('provider_a', 'transaction.completed');
    expect(refused.status).toBe(500);
    const all = (await w.events()).slice(setupEvents);
    expect(all.map((e) => e.type)).toEqual(['webhook.received']);
    expect(all[0]).toMatchObject({
      license: null,
      data: { provider: 'provider_a', eventType: 'transaction.completed', result: 'customer_unknown', detail: expect.stringContaining('ctm_01hv8wt8nffez4p2t6typn4a5j') },
    });
    await w.deliver('provider_a', 'customer.created');
    expect((await w.deliver('provider_a', 'transaction.completed')).body.result).toBe('processed');
    expect((await w.events('webhook.received')).map((e) => e.data.result)).toEqual(['customer_unknown', 'processed', 'processed']);
  });

  it('429 rate_limited: logged with the reason', async () => {
    const w = await createWorld(setup, { servicePlan: 'tiny', servicePlans: tiny });
    await w.deliver('provider_b', 'order_created'); // the one key e-mail of this hour
    await w.deliver('provider_a', 'customer.created');
    expect((await w.deliver('provider_a', 'transaction.completed')).status).toBe(429);
    expect((await lastDelivery(w))?.data).toMatchObject({
      provider: 'provider_a',
      eventType: 'transaction.completed',
      result: 'rate_limited',
      detail: expect.stringContaining('hourly budget'),
    });
  });

  it('409 conflict (a payment for a revoked license): logged', async () => {
    const w = await createWorld(setup);
    w.clock.set('2024-06-05T12:00:00Z');
    await w.deliver('provider_b', 'subscription_created');
    const [license] = await w.licenses();
    expect((await w.api('POST', `/licenses/${license.id}/revoke`)).status).toBe(200);
    w.clock.set('2024-07-05T12:00:00Z');
    const refused = await w.deliver('provider_b', 'subscription_updated');
    expect(refused.status).toBe(409);
    expect((await lastDelivery(w))?.data).toMatchObject({ provider: 'provider_b', eventType: 'subscription_updated', result: 'conflict' });
  });

  it('500 for a signed body that cannot be read: logged as an error with its event name', async () => {
    const w = await createWorld(setup);
    const body = eventA('transaction.completed');
    delete body.data.items;
    expect((await w.deliver('provider_a', body)).status).toBe(500);
    const entry = await lastDelivery(w);
    expect(entry?.data).toMatchObject({ provider: 'provider_a', eventType: 'transaction.completed', result: 'error' });
    expect(typeof entry?.data.detail).toBe('string');
    expect(await w.licenses()).toEqual([]);
  });
});
