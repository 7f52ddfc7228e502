import { describe, expect, it } from 'vitest';
import type { AuditEventView } from '@svc-licensing/license-engine';
import { changed, command, createCatalog, createTestEngine, fingerprint, paid } from './fixtures.js';

describe('audit events', () => {
  it('records every type of the spec table with its data keys, newest first, filterable by license', async () => {
    const t = createTestEngine();
    const c = await createCatalog(t);
    const { license } = await t.engine.createLicense(c.account.id, { plan: c.plans.pro.id, email: 'a@example.test', paidUntil: '2031-01-01T00:00:00Z' });
    const { activation } = await t.engine.activate({ product: c.product.id, key: license.key, fingerprint: fingerprint(1) });
    await t.engine.deactivate({ product: c.product.id, key: license.key, fingerprint: fingerprint(1) });
    await t.engine.suspendLicense(c.account.id, license.id);
    await t.engine.updateLicense(c.account.id, license.id, { seats: 2 });
    const webhook = await t.engine.applyPaymentCommand(c.providerB.id, paid({ occurredAt: '2030-01-15T09:00:00Z', paidUntil: '2030-02-15T09:00:00Z' }));
    await t.engine.createSigningKey(c.account.id, c.product.id);
    await t.engine.activateSigningKey(c.account.id, c.product.id, 'k2');
    await t.engine.exportSigningKeys(c.account.id, c.product.id);
    await t.engine.changeServicePlan(c.account.id, 'unlimited');

    const all: AuditEventView[] = [];
    let cursor: string | null = null;
    do {
      const page = await t.engine.listEvents(c.account.id, { cursor });
      all.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor);
    const byType = (type: string) => all.filter((e) => e.type === type);
    const keysOf = (type: string) => Object.keys(byType(type)[0]?.data ?? { missing: true }).sort();

    expect(new Set(all.map((e) => e.type))).toEqual(
      new Set([
        'license.created', 'license.status_changed', 'license.updated', 'activation.created', 'activation.deleted', 'webhook.received',
        'signing_key.created', 'signing_key.rotated', 'signing_key.exported', 'account.plan_changed',
      ]),
    );
    expect(keysOf('license.status_changed')).toEqual(['from', 'source', 'to']);
    expect(byType('license.status_changed')[0]).toMatchObject({ license: license.id, data: { from: 'active', to: 'suspended', source: 'vendor' } });
    expect(keysOf('webhook.received')).toEqual(['detail', 'eventType', 'provider', 'result']);
    expect(byType('webhook.received')[0]).toMatchObject({
      license: webhook.licenseId,
      data: { provider: 'provider_b', eventType: 'subscription_payment_success', result: 'processed', detail: expect.any(String) },
    });
    expect(byType('activation.created')[0]).toMatchObject({ license: license.id, data: { activation, fingerprint: fingerprint(1) } });
    expect(byType('activation.deleted')[0]).toMatchObject({ license: license.id, data: { activation, source: 'client' } });
    expect(byType('license.created').map((e) => e.data.source).sort()).toEqual(['provider_b', 'vendor']);
    expect(byType('signing_key.created')[0]?.data).toEqual({ product: c.product.id, kid: 'k2' });
    expect(byType('signing_key.rotated')[0]?.data).toEqual({ product: c.product.id, kid: 'k2', retiredKid: 'k1' });
    // The contract's fields, and the actor (an extension, issue 25: null for the service's own events).
    for (const e of all) expect(Object.keys(e).sort()).toEqual(['actor', 'createdAt', 'data', 'id', 'license', 'type']);
    expect(all.map((e) => e.id)).toEqual([...all.map((e) => e.id)].sort().reverse());

    const mine = (await t.engine.listEvents(c.account.id, { license: license.id })).data;
    expect(mine.every((e) => e.license === license.id)).toBe(true);
    expect(mine.map((e) => e.type)).toEqual(['license.updated', 'license.status_changed', 'activation.deleted', 'activation.created', 'license.created']);
  });

  it('logs ignored and duplicate webhooks too', async () => {
    const t = createTestEngine();
    const c = await createCatalog(t);
    const event = command('ignored', { reason: 'unhandled event type order_refund_pending', eventType: 'order_refund_pending' });
    await t.engine.applyPaymentCommand(c.providerB.id, event);
    await t.engine.applyPaymentCommand(c.providerB.id, event);
    await t.engine.applyPaymentCommand(c.providerB.id, changed({ status: 'active', occurredAt: '2030-01-15T09:00:00Z', subscriptionId: 'sub_none' }));
    const results = (await t.engine.listEvents(c.account.id)).data.map((e) => [e.type, e.data.result]);
    expect(results).toEqual([
      ['webhook.received', 'ignored'],
      ['webhook.received', 'duplicate'],
      ['webhook.received', 'ignored'],
    ]);
  });

  it('another account sees none of them', async () => {
    const t = createTestEngine();
    const c = await createCatalog(t);
    await t.engine.createLicense(c.account.id, { plan: c.plans.lifetime.id, email: 'a@example.test' });
    const other = (await t.engine.createAccount({ name: 'O', ownerEmail: 'o@example.test' })).account.id;
    expect((await t.engine.listEvents(other)).data).toEqual([]);
  });
});
