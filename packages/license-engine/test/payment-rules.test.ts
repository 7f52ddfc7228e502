import { beforeEach, describe, expect, it } from 'vitest';
import type { Catalog, TestEngine } from './fixtures.js';
import { changed, codeOf, command, createCatalog, createTestEngine, fingerprint, paid, refusedCode, verifyCertificate } from './fixtures.js';

let t: TestEngine;
let c: Catalog;

beforeEach(async () => {
  t = createTestEngine();
  c = await createCatalog(t);
});

const apply = (cmd: Parameters<TestEngine['engine']['applyPaymentCommand']>[1], integration = c.providerB.id) =>
  t.engine.applyPaymentCommand(integration, cmd);
const license = (id: string) => t.engine.getLicense(c.account.id, id);

async function subscribe() {
  const result = await apply(paid({ occurredAt: '2030-01-15T09:00:00.500Z', paidUntil: '2030-02-15T09:00:00Z' }));
  return result.licenseId!;
}

describe('rule 1: a subscription status event older than the last processed one is ignored', () => {
  it('ignores an older event, reported as stale', async () => {
    const id = await subscribe();
    await apply(changed({ status: 'canceled', occurredAt: '2030-01-20T00:00:00Z' }));
    const late = await apply(changed({ status: 'active', occurredAt: '2030-01-19T00:00:00Z' }));
    expect(late.result).toBe('ignored');
    expect(late.detail).toMatch(/stale/);
    expect((await license(id)).status).toBe('canceled');
  });

  it('orders events within the same second by their fractions', async () => {
    const id = await subscribe();
    await apply(changed({ status: 'past_due', occurredAt: '2030-01-20T00:00:00.750123Z' }));
    const earlier = await apply(changed({ status: 'active', occurredAt: '2030-01-20T00:00:00.750122Z' }));
    expect([earlier.result, (await license(id)).status]).toEqual(['ignored', 'past_due']);
    const later = await apply(changed({ status: 'canceled', occurredAt: '2030-01-20T00:00:00.7502Z' }));
    expect([later.result, (await license(id)).status]).toEqual(['processed', 'canceled']);
  });

  it('compares instants in UTC whatever offset the provider writes', async () => {
    const id = await subscribe();
    await apply(changed({ status: 'canceled', occurredAt: '2030-01-20T00:30:00Z' }));
    // 01:00+01:00 is 00:00Z: earlier, although its text sorts later.
    const earlier = await apply(changed({ status: 'active', occurredAt: '2030-01-20T01:00:00+01:00' }));
    expect([earlier.result, (await license(id)).status]).toEqual(['ignored', 'canceled']);
    // 00:00-01:00 is 01:00Z: later, although its text sorts earlier.
    const later = await apply(changed({ status: 'past_due', occurredAt: '2030-01-20T00:00:00-01:00' }));
    expect([later.result, (await license(id)).status]).toEqual(['processed', 'past_due']);
  });

  it('breaks a tie at the same instant by event ID, so concurrent deliveries agree on one order', async () => {
    const id = await subscribe();
    const at = '2030-01-20T00:00:00.000001Z';
    await apply(changed({ status: 'past_due', occurredAt: at, eventId: 'evt_b' }));
    const lower = await apply(changed({ status: 'active', occurredAt: at, eventId: 'evt_a' }));
    expect([lower.result, (await license(id)).status]).toEqual(['ignored', 'past_due']);
    const higher = await apply(changed({ status: 'canceled', occurredAt: at, eventId: 'evt_c' }));
    expect([higher.result, (await license(id)).status]).toEqual(['processed', 'canceled']);
  });

  it('applies events delivered concurrently in their event order, whatever order they arrive in', async () => {
    const id = await subscribe();
    const events = [
      changed({ status: 'past_due', occurredAt: '2030-01-20T00:00:01Z' }),
      changed({ status: 'canceled', occurredAt: '2030-01-20T00:00:03Z' }),
      changed({ status: 'active', occurredAt: '2030-01-20T00:00:02Z' }),
    ];
    await Promise.all([events[1]!, events[2]!, events[0]!].map((e) => apply(e)));
    expect((await license(id)).status).toBe('canceled');
  });

  it('rejects an event without a valid occurredAt as invalid_request, changing nothing', async () => {
    await subscribe();
    expect(await codeOf(apply(changed({ status: 'canceled', occurredAt: 'yesterday' })))).toBe('invalid_request');
  });
});

describe('rule 2: an older payment may extend the paid period but restores no older plan, quantity or status', () => {
  it('extends paidUntil only', async () => {
    const id = await subscribe();
    await apply(paid({ occurredAt: '2030-02-15T09:00:00Z', paidUntil: '2030-03-15T09:00:00Z', priceId: 'var_team', quantity: 2 }));
    await apply(changed({ status: 'past_due', occurredAt: '2030-02-20T00:00:00Z' }));
    const old = await apply(paid({ occurredAt: '2030-02-01T00:00:00Z', paidUntil: '2030-04-15T09:00:00Z', priceId: 'var_pro', quantity: 7 }));
    expect(old.result).toBe('processed');
    const after = await license(id);
    expect([after.paidUntil, after.plan, after.seats, after.status]).toEqual(['2030-04-15T09:00:00Z', 'team', 2, 'past_due']);
  });

  it('never shortens the paid period', async () => {
    const id = await subscribe();
    await apply(paid({ occurredAt: '2030-02-15T09:00:00Z', paidUntil: '2030-03-15T09:00:00Z' }));
    const old = await apply(paid({ occurredAt: '2030-02-01T00:00:00Z', paidUntil: '2030-02-20T00:00:00Z' }));
    expect([old.result, (await license(id)).paidUntil]).toEqual(['ignored', '2030-03-15T09:00:00Z']);
  });
});

describe('rule 3: revoked stays revoked', () => {
  it('a chargeback then every later event leaves it revoked', async () => {
    const id = await subscribe();
    await apply(command('chargeback', { subscriptionId: 'sub_1', orderId: null }));
    expect(await refusedCode(apply(paid({ occurredAt: '2030-02-15T09:00:00Z', paidUntil: '2030-03-15T09:00:00Z' })))).toBe('conflict');
    await apply(changed({ status: 'active', occurredAt: '2030-02-16T00:00:00Z' }));
    await apply(command('chargeback', { subscriptionId: 'sub_1', orderId: null }));
    expect((await license(id)).status).toBe('revoked');
  });
});

describe('plan changes in place', () => {
  it('a mapped payment moves the plan: key and machines stay, new terms apply at the next certificate', async () => {
    const id = await subscribe();
    const before = await license(id);
    const act = await t.engine.activate({ product: c.product.id, key: before.key, fingerprint: fingerprint(1) });
    const first = verifyCertificate(act.certificate, (await t.engine.listSigningKeys(c.account.id, c.product.id)).data[0]!.publicKey);
    expect([first.plan, first.entitlements, first.maxMajor]).toEqual(['pro', ['export', 'sync'], 3]);
    await apply(paid({ occurredAt: '2030-02-15T09:00:00Z', paidUntil: '2030-03-15T09:00:00Z', priceId: 'var_team' }));
    const after = await license(id);
    expect([after.key, after.activationCount, after.plan, after.planId, after.activationLimit, after.maxMajor]).toEqual([
      before.key, 1, 'team', c.plans.team.id, 5, null,
    ]);
    const next = await t.engine.validate({ product: c.product.id, key: before.key, fingerprint: fingerprint(1) });
    const payload = verifyCertificate(next.certificate, (await t.engine.listSigningKeys(c.account.id, c.product.id)).data[0]!.publicKey);
    expect([payload.plan, payload.entitlements, payload.maxMajor]).toEqual(['team', ['export', 'sync', 'admin'], null]);
  });

  it('a mapped status update moves the plan; an explicit activation override is kept', async () => {
    const id = await subscribe();
    await t.engine.updateLicense(c.account.id, id, { maxActivations: 9 });
    await apply(changed({ status: 'active', occurredAt: '2030-01-20T00:00:00Z', priceId: 'var_team' }));
    const after = await license(id);
    expect([after.plan, after.maxActivations, after.activationLimit]).toEqual(['team', 9, 9]);
  });

  it('a status update without a mapped price keeps the plan', async () => {
    const id = await subscribe();
    const result = await apply(changed({ status: 'past_due', occurredAt: '2030-01-20T00:00:00Z', priceId: 'var_unknown' }));
    expect(result.result).toBe('processed');
    expect([(await license(id)).plan, (await license(id)).status]).toEqual(['pro', 'past_due']);
  });

  it('a payment whose price is not mapped is ignored and logged', async () => {
    const result = await apply(paid({ occurredAt: '2030-01-15T09:00:00Z', paidUntil: '2030-02-15T09:00:00Z', priceId: 'var_unknown' }));
    expect(result).toMatchObject({ result: 'ignored', licenseId: null, keyEmail: null });
    expect((await t.engine.listLicenses(c.account.id)).data).toEqual([]);
    const [event] = (await t.engine.listEvents(c.account.id)).data;
    expect(event).toMatchObject({ type: 'webhook.received', data: { provider: 'provider_b', result: 'ignored' } });
  });
});

describe('one license per customer and plan subscription', () => {
  it('more payments of one subscription keep one license', async () => {
    const id = await subscribe();
    const again = await apply(paid({ occurredAt: '2030-02-15T09:00:00Z', paidUntil: '2030-03-15T09:00:00Z' }));
    expect(again.licenseId).toBe(id);
    expect(again.keyEmail).toBeNull();
    expect((await t.engine.listLicenses(c.account.id)).data).toHaveLength(1);
  });

  it('a second live subscription of the same plan gets its own license', async () => {
    const id = await subscribe();
    const second = await apply(paid({ subscriptionId: 'sub_2', occurredAt: '2030-01-16T00:00:00Z', paidUntil: '2030-02-16T00:00:00Z' }));
    expect(second.licenseId).not.toBe(id);
    expect((await license(id)).paidUntil).toBe('2030-02-15T09:00:00Z');
  });

  it('re-subscribing after the paid period ended reuses the license, whatever its status', async () => {
    const id = await subscribe();
    t.clock.set('2030-03-01T00:00:00Z');
    const again = await apply(paid({ subscriptionId: 'sub_2', occurredAt: '2030-03-01T00:00:00Z', paidUntil: '2030-04-01T00:00:00Z' }));
    expect(again.licenseId).toBe(id);
  });

  it('re-subscribing after expiry reuses the license and key', async () => {
    const id = await subscribe();
    const { key } = await license(id);
    await t.engine.releaseKeyEmail(id); // the first key e-mail was sent
    await apply(changed({ status: 'expired', occurredAt: '2030-03-01T00:00:00Z' }));
    const again = await apply(paid({ subscriptionId: 'sub_2', occurredAt: '2030-04-01T00:00:00Z', paidUntil: '2030-05-01T00:00:00Z' }));
    expect(again.licenseId).toBe(id);
    const after = await license(id);
    expect([after.key, after.status, after.paidUntil]).toEqual([key, 'active', '2030-05-01T00:00:00Z']);
    // Events of the new subscription now reach the same license.
    await apply(changed({ subscriptionId: 'sub_2', status: 'past_due', occurredAt: '2030-05-02T00:00:00Z' }));
    expect((await license(id)).status).toBe('past_due');
  });

  it('a subscription created by a status event with a period end creates the license (provider_b)', async () => {
    const created = await apply(changed({ status: 'active', occurredAt: '2030-01-15T09:00:00Z', priceId: 'var_pro', quantity: 2, currentPeriodEnd: '2030-02-15T09:00:00Z' }));
    expect(created.keyEmail).not.toBeNull();
    const l = await license(created.licenseId!);
    expect([l.status, l.paidUntil, l.seats]).toEqual(['active', '2030-02-15T09:00:00Z', 2]);
  });
});

describe('de-duplication', () => {
  it('the same event ID again is a duplicate and changes nothing', async () => {
    const event = paid({ occurredAt: '2030-01-15T09:00:00Z', paidUntil: '2030-02-15T09:00:00Z' });
    const first = await apply(event);
    const second = await apply(event);
    expect([first.result, second.result]).toEqual(['processed', 'duplicate']);
    expect((await t.engine.listLicenses(c.account.id)).data).toHaveLength(1);
  });

  it('the same event ID on another integration is another event', async () => {
    const event = paid({ occurredAt: '2030-01-15T09:00:00Z', paidUntil: '2030-02-15T09:00:00Z' });
    await apply(event);
    const other = await apply({ ...event, provider: 'provider_a', priceId: 'pri_pro', subscriptionId: 'sub_a' }, c.providerA.id);
    expect(other.result).toBe('processed');
    expect((await t.engine.listLicenses(c.account.id)).data).toHaveLength(2);
  });

  it('records each processed event with its outcome, and a duplicate finds it', async () => {
    const bought = await apply(paid({ occurredAt: '2030-01-15T09:00:00Z', paidUntil: '2030-02-15T09:00:00Z', eventId: 'evt_paid' }));
    const unmapped = await apply(paid({ occurredAt: '2030-01-16T09:00:00Z', paidUntil: '2030-02-16T09:00:00Z', eventId: 'evt_unmapped', priceId: 'var_none' }));
    expect([bought.result, unmapped.result]).toEqual(['processed', 'ignored']);
    let text = '';
    for await (const chunk of (await t.engine.exportAccount(c.account.id)).chunks) text += chunk;
    const recorded = (JSON.parse(text) as { processedEvents: { eventId: string; result: string }[] }).processedEvents.map((e) => [e.eventId, e.result]);
    expect(recorded.sort()).toEqual([['evt_paid', 'processed'], ['evt_unmapped', 'ignored']]);
    expect((await apply(paid({ occurredAt: '2030-01-16T09:00:00Z', paidUntil: '2030-02-16T09:00:00Z', eventId: 'evt_unmapped', priceId: 'var_none' }))).result).toBe('duplicate');
  });

  it('a command of another provider than the integration is invalid_request', async () => {
    expect(await codeOf(apply(paid({ provider: 'provider_a', occurredAt: '2030-01-15T09:00:00Z', paidUntil: '2030-02-15T09:00:00Z' })))).toBe('invalid_request');
  });

  it('an unknown integration is not_found', async () => {
    expect(await refusedCode(t.engine.applyPaymentCommand('int_missing', paid({ occurredAt: '2030-01-15T09:00:00Z', paidUntil: '2030-02-15T09:00:00Z' })))).toBe('not_found');
  });
});
