import { expect, it } from 'vitest';
import { DELIVERY_RETENTION_DAYS, LicensingError } from '@svc-licensing/license-engine';
import { DAY, createCatalog, createTestEngine } from './fixtures.js';

// Engine rules of the notification outbox that the store conformance suite does not cover: the
// 30-day purge, payloads of payment events, endpoint limits and the subscriptions kept on the account.

it('purges the deliveries queued more than 30 days ago, whatever their state, and keeps the others', async () => {
  const t = createTestEngine();
  const { account, plans } = await createCatalog(t);
  const endpoint = await t.engine.createWebhookEndpoint(account.id, { url: 'https://hooks.acme.test/' });
  const old = await t.engine.createLicense(account.id, { plan: plans.lifetime.id, email: 'old@acme.test' });
  t.clock.advance(DELIVERY_RETENTION_DAYS * DAY - 1000);
  const recent = await t.engine.createLicense(account.id, { plan: plans.lifetime.id, email: 'recent@acme.test' });
  t.clock.advance(2000);
  expect(await t.engine.purgeOldDeliveries()).toEqual({ deleted: 1 });
  const left = await t.engine.listDeliveries(account.id, endpoint.id);
  expect(left.data).toHaveLength(1);
  const bodies = await t.store.transaction((tx) => tx.findMany('notificationDeliveries', { endpointId: endpoint.id }));
  expect(bodies.map((d) => JSON.parse(d.body).data.id)).toEqual([recent.license.id]);
  expect(bodies.map((d) => JSON.parse(d.body).data.id)).not.toContain(old.license.id);
  expect(await t.engine.purgeOldDeliveries()).toEqual({ deleted: 0 });
});

it('a purchase notifies license.created and webhook.received with the license and the integration, in the unit of the event', async () => {
  const t = createTestEngine();
  const { account, providerB } = await createCatalog(t);
  const endpoint = await t.engine.createWebhookEndpoint(account.id, { url: 'https://hooks.acme.test/', events: ['license.created', 'webhook.received'] });
  const result = await t.engine.applyPaymentCommand(providerB.id, {
    kind: 'subscription_paid', provider: 'provider_b', eventId: 'evt_1', eventType: 'subscription_payment_success', occurredAt: '2030-01-15T09:00:00Z',
    customer: { providerCustomerId: null, email: 'buyer@acme.test', name: 'Buyer' }, subscriptionId: 'sub_1', orderId: null, priceId: 'var_pro', quantity: 1,
    paidUntil: '2030-02-15T00:00:00Z',
  });
  const queued = await t.store.transaction((tx) => tx.findMany('notificationDeliveries', { endpointId: endpoint.id }));
  const bodies = queued.map((d) => JSON.parse(d.body));
  expect(bodies.map((b) => b.type)).toEqual(['license.created', 'webhook.received']);
  expect(bodies[0].data).toMatchObject({ id: (result as { licenseId: string }).licenseId, provider: 'provider_b', customer: { email: 'buyer@acme.test' } });
  expect(bodies[1].data).toMatchObject({ id: providerB.id, provider: 'provider_b', event: { type: 'webhook.received', data: { result: 'processed' } } });
  expect(bodies[1].data.webhookSecret).toBeUndefined();
});

it('keeps the account subscriptions in step with its enabled endpoints, and refuses an 11th endpoint', async () => {
  const t = createTestEngine();
  const { account } = await createCatalog(t);
  const subscriptions = async () => (await t.store.transaction((tx) => tx.get('accounts', account.id)))!.webhookSubscriptions;
  const a = await t.engine.createWebhookEndpoint(account.id, { url: 'https://a.acme.test/', events: ['activation.created'] });
  const b = await t.engine.createWebhookEndpoint(account.id, { url: 'https://b.acme.test/' });
  expect(await subscriptions()).toEqual([{ endpoint: a.id, events: ['activation.created'] }, { endpoint: b.id, events: [] }]);
  await t.engine.updateWebhookEndpoint(account.id, a.id, { enabled: false });
  await t.engine.deleteWebhookEndpoint(account.id, b.id);
  expect(await subscriptions()).toEqual([]);
  for (let i = 0; i < 9; i++) await t.engine.createWebhookEndpoint(account.id, { url: `https://n${i}.acme.test/` });
  const refused = await t.engine.createWebhookEndpoint(account.id, { url: 'https://eleven.acme.test/' }).catch((error: unknown) => error);
  expect(LicensingError.is(refused) && refused.code).toBe('conflict');
  expect(await t.engine.listWebhookEndpoints(account.id)).toMatchObject({ data: { length: 10 } });
  // The secret opens for its endpoint only (sealed for its purpose and record), and is never listed.
  expect(JSON.stringify(await t.engine.listWebhookEndpoints(account.id))).not.toContain('whsec_');
});
