import { expect, it } from 'vitest';
import { machineFingerprint } from '@svc-licensing/cert-format';
import { createWorld, eventA, fixtureJson, PRICES, type World } from '../support/payment-world.js';
import { describeEveryStore } from '../support/harness.js';

const SUB = 'sub_01hv8x29kz0t586xy6zn1a62ny';

/** provider_a: the customer subscribes (3 seats, paid until 2024-05-12T10:37:59Z). */
async function subscribe(w: World) {
  await w.deliver('provider_a', 'customer.created');
  const paid = await w.deliver('provider_a', 'transaction.completed.subscription');
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  const [item] = await w.licenses();
  return (await w.api('GET', `/licenses/${item.id}`)).body;
}

const get = async (w: World, id: string) => (await w.api('GET', `/licenses/${id}`)).body;

/** A renewal payment of the subscription for the period [start, end). */
function renewal(eventId: string, occurredAt: string, start: string, end: string) {
  const body = eventA('transaction.completed.subscription', { eventId, occurredAt });
  body.data.id = `txn_${eventId}`;
  body.data.billing_period = { starts_at: start, ends_at: end };
  return body;
}

/** A subscription status event with a new ID and time. */
function statusEvent(name: string, eventId: string, occurredAt: string) {
  return eventA(name, { eventId, occurredAt });
}

describeEveryStore('subscriptions (provider_a)', (setup) => {
  it('a subscription payment gives an active license with the period end and item quantity, and e-mails the key once', async () => {
    const w = await createWorld(setup);
    const license = await subscribe(w);
    expect(license).toMatchObject({
      status: 'active',
      plan: 'pro',
      seats: 3,
      activationLimit: 6,
      paidUntil: '2024-05-12T10:37:59Z',
      validUntil: '2024-05-15T10:37:59Z',
      provider: 'provider_a',
    });
    const [mail] = await w.smtp.waitFor(1);
    expect(mail!.mail.text).toContain(license.key);
    // subscription.activated (older than the payment) changes nothing and sends nothing.
    expect((await w.deliver('provider_a', 'subscription.activated')).status).toBe(200);
    expect((await get(w, license.id)).status).toBe('active');
    expect(w.smtp.messages).toHaveLength(1);
  });

  it('past_due, then a renewal extends paidUntil and makes it active again', async () => {
    const w = await createWorld(setup);
    const license = await subscribe(w);
    w.clock.set('2024-05-12T10:39:00Z');
    expect((await w.deliver('provider_a', 'subscription.past_due')).body.result).toBe('processed');
    expect((await get(w, license.id)).status).toBe('past_due');
    const fp = machineFingerprint(w.productId, 'laptop');
    expect((await w.client('activate', { product: w.productId, key: license.key, fingerprint: fp })).status).toBe(200);

    const renewed = await w.deliver('provider_a', renewal('evt_renew_1', '2024-05-13T10:38:10.000001Z', '2024-05-12T10:37:59Z', '2024-06-12T10:37:59Z'));
    expect(renewed.body.result).toBe('processed');
    expect(await get(w, license.id)).toMatchObject({ status: 'active', paidUntil: '2024-06-12T10:37:59Z', key: license.key, activationCount: 1 });
    expect(w.smtp.messages).toHaveLength(1);
  });

  it('canceled stays usable until validUntil, then the client API refuses it as expired', async () => {
    const w = await createWorld(setup);
    const license = await subscribe(w);
    const fp = machineFingerprint(w.productId, 'desk');
    await w.client('activate', { product: w.productId, key: license.key, fingerprint: fp });
    w.clock.set('2024-05-12T11:00:00Z');
    expect((await w.deliver('provider_a', 'subscription.canceled')).body.result).toBe('processed');
    expect((await get(w, license.id)).status).toBe('canceled');
    expect((await w.client('validate', { product: w.productId, key: license.key, fingerprint: fp })).status).toBe(200);
    w.clock.set('2024-05-15T10:38:00Z');
    const expired = await w.client('validate', { product: w.productId, key: license.key, fingerprint: fp });
    expect(expired.status).toBe(403);
    expect(expired.body.error.code).toBe('license_expired');
  });

  it('pause suspends the license and resume makes it active again', async () => {
    const w = await createWorld(setup);
    const license = await subscribe(w);
    const fp = machineFingerprint(w.productId, 'desk');
    await w.client('activate', { product: w.productId, key: license.key, fingerprint: fp });
    w.clock.set('2024-05-12T10:45:00Z');
    await w.deliver('provider_a', 'subscription.paused');
    expect((await get(w, license.id)).status).toBe('suspended');
    expect((await w.client('validate', { product: w.productId, key: license.key, fingerprint: fp })).body.error.code).toBe('license_suspended');
    w.clock.set('2024-05-20T08:01:00Z');
    await w.deliver('provider_a', 'subscription.resumed');
    expect((await get(w, license.id)).status).toBe('active');
  });

  it('a plan change by price moves the license to the new plan, keeping key and machines', async () => {
    const w = await createWorld(setup);
    const license = await subscribe(w);
    const fp = machineFingerprint(w.productId, 'desk');
    const activation = (await w.client('activate', { product: w.productId, key: license.key, fingerprint: fp })).body.activation;
    const change = statusEvent('subscription.updated', 'evt_plan_change', '2024-04-20T09:00:00.000000Z');
    change.data.status = 'active';
    change.data.items[0].price.id = PRICES.a.team;
    change.data.items[0].quantity = 2;
    expect((await w.deliver('provider_a', change)).body.result).toBe('processed');
    const after = await get(w, license.id);
    expect(after).toMatchObject({ plan: 'team', key: license.key, seats: 2, activationLimit: 10, entitlements: ['export', 'share'], maxMajor: 3, activationCount: 1 });
    expect(after.paidUntil).toBe(license.paidUntil);
    expect(after.activations.map((a: { id: string }) => a.id)).toEqual([activation]);
    // The machine keeps validating, now under the new plan.
    const validated = await w.client('validate', { product: w.productId, key: license.key, fingerprint: fp });
    expect(validated.status).toBe(200);
    const payload = JSON.parse(Buffer.from(validated.body.certificate.split('.')[1], 'base64url').toString('utf8'));
    expect(payload).toMatchObject({ plan: 'team', entitlements: ['export', 'share'], maxMajor: 3 });
    // A status update without a mapped price keeps the plan.
    const unmapped = statusEvent('subscription.updated', 'evt_unmapped', '2024-04-21T09:00:00.000000Z');
    unmapped.data.status = 'past_due';
    unmapped.data.items[0].price.id = 'pri_unknown';
    await w.deliver('provider_a', unmapped);
    expect(await get(w, license.id)).toMatchObject({ plan: 'team', status: 'past_due' });
  });

  it('a chargeback revokes the license and later payments never revive it', async () => {
    const w = await createWorld(setup);
    const license = await subscribe(w);
    w.clock.set('2024-05-02T16:06:00Z');
    expect((await w.deliver('provider_a', 'adjustment.created.chargeback')).body.result).toBe('processed');
    expect((await get(w, license.id)).status).toBe('revoked');

    const payment = await w.deliver('provider_a', renewal('evt_after_cb', '2024-05-13T10:38:10.000001Z', '2024-05-12T10:37:59Z', '2024-06-12T10:37:59Z'));
    expect(payment.status).toBe(409);
    expect(payment.body.error.code).toBe('conflict');
    w.clock.set('2024-05-20T08:01:00Z');
    expect((await w.deliver('provider_a', 'subscription.resumed')).status).toBe(200);
    expect(await get(w, license.id)).toMatchObject({ status: 'revoked', paidUntil: '2024-05-12T10:37:59Z' });
  });

  it('full versus partial refund of the subscription payment', async () => {
    const w = await createWorld(setup);
    const license = await subscribe(w);
    w.clock.set('2024-04-15T10:00:00Z');
    await w.deliver('provider_a', 'adjustment.updated.partial');
    expect((await get(w, license.id)).status).toBe('active');
    await w.deliver('provider_a', 'adjustment.updated');
    expect((await get(w, license.id)).status).toBe('refunded');
  });

  it('out-of-order deliveries: an older status event is ignored; an older payment only extends the period', async () => {
    const w = await createWorld(setup);
    const license = await subscribe(w);
    w.clock.set('2024-05-12T11:00:00Z');
    await w.deliver('provider_a', 'subscription.canceled'); // 10:40:02
    const stale = await w.deliver('provider_a', 'subscription.past_due'); // 10:38:21, arrives late
    expect(stale.body.result).toBe('ignored');
    expect((await get(w, license.id)).status).toBe('canceled');

    // A payment event older than the cancellation extends paidUntil but does not reactivate.
    const late = await w.deliver('provider_a', renewal('evt_late_pay', '2024-05-12T10:39:00.000000Z', '2024-05-12T10:37:59Z', '2024-06-12T10:37:59Z'));
    expect(late.status).toBe(200);
    expect(await get(w, license.id)).toMatchObject({ status: 'canceled', paidUntil: '2024-06-12T10:37:59Z' });
  });

  it('concurrent deliveries of one event create one license and one e-mail', async () => {
    const w = await createWorld(setup);
    await w.deliver('provider_a', 'customer.created');
    const answers = await Promise.all(Array.from({ length: 6 }, () => w.deliver('provider_a', 'transaction.completed.subscription')));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(answers.filter((a) => a.body.result === 'processed')).toHaveLength(1);
    expect(answers.filter((a) => a.body.result === 'duplicate')).toHaveLength(5);
    expect(await w.licenses()).toHaveLength(1);
    await w.smtp.waitFor(1);
    expect(w.smtp.messages).toHaveLength(1);
  });

  it('concurrent status events end in the newest one’s status', async () => {
    const w = await createWorld(setup);
    const license = await subscribe(w);
    w.clock.set('2024-05-12T11:00:00Z');
    await Promise.all([w.deliver('provider_a', 'subscription.canceled'), w.deliver('provider_a', 'subscription.past_due')]);
    expect((await get(w, license.id)).status).toBe('canceled');
  });

  it('re-subscribing after the subscription ended reuses the license and key', async () => {
    const w = await createWorld(setup);
    const license = await subscribe(w);
    w.clock.set('2024-05-12T11:00:00Z');
    await w.deliver('provider_a', 'subscription.canceled');
    w.clock.set('2024-07-01T09:00:00Z');
    const again = renewal('evt_resub', '2024-07-01T08:59:00.000000Z', '2024-07-01T08:58:00Z', '2024-08-01T08:58:00Z');
    again.data.subscription_id = 'sub_second_subscription';
    expect((await w.deliver('provider_a', again)).body.result).toBe('processed');
    const licenses = await w.licenses();
    expect(licenses).toHaveLength(1);
    expect(await get(w, license.id)).toMatchObject({ status: 'active', key: license.key, paidUntil: '2024-08-01T08:58:00Z' });
  });

  it('re-subscribing e-mails the same key again; while another key e-mail of that license is sending it answers 409 and the retry is processed', async () => {
    const w = await createWorld(setup);
    const license = await subscribe(w);
    await w.smtp.waitFor(1);
    w.clock.set('2024-05-12T11:00:00Z');
    await w.deliver('provider_a', 'subscription.canceled');
    w.clock.set('2024-07-01T09:00:00Z');
    const again = renewal('evt_resub', '2024-07-01T08:59:00.000000Z', '2024-07-01T08:58:00Z', '2024-08-01T08:58:00Z');
    again.data.subscription_id = 'sub_second_subscription';

    const held = w.smtp.hold();
    const sendKey = w.api('POST', `/licenses/${license.id}/send-key`);
    await held.arrived;
    const busy = await w.deliver('provider_a', again);
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('key_email_in_progress');
    expect(await get(w, license.id)).toMatchObject({ status: 'canceled', paidUntil: '2024-05-12T10:37:59Z' });
    const audit = await w.events('webhook.received');
    expect(audit.at(-1)?.data).toMatchObject({ provider: 'provider_a', eventType: 'transaction.completed', result: 'key_email_in_progress' });
    held.release();
    expect((await sendKey).status).toBe(200);

    // The event was not marked processed: the provider's retry applies it and e-mails the key.
    const retry = await w.deliver('provider_a', again);
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ result: 'processed', keyEmail: 'sent' });
    expect(await get(w, license.id)).toMatchObject({ status: 'active', key: license.key, paidUntil: '2024-08-01T08:58:00Z' });
    const mails = await w.smtp.waitFor(3);
    expect(mails.map((m) => m.envelope.to[0])).toEqual(['ada@example.com', 'ada@example.com', 'ada@example.com']);
    expect(mails[2]!.mail.text).toContain(license.key);
    expect(await w.licenses()).toHaveLength(1);
  });
});

describeEveryStore('subscriptions (provider_b)', (setup) => {
  it('created, renewed, cancelled, expired', async () => {
    const w = await createWorld(setup);
    w.clock.set('2024-06-05T12:00:00Z');
    const created = await w.deliver('provider_b', 'subscription_created');
    expect(created.body).toMatchObject({ result: 'processed', keyEmail: 'sent' });
    const [item] = await w.licenses();
    expect(item).toMatchObject({ status: 'active', plan: 'pro', seats: 2, provider: 'provider_b', customer: { email: 'grace@example.com' } });
    const [mail] = await w.smtp.waitFor(1);
    expect(mail!.envelope.to).toEqual(['grace@example.com']);

    w.clock.set('2024-07-05T12:00:00Z');
    await w.deliver('provider_b', 'subscription_updated');
    const renewsAt = String(fixtureJson('provider_b', 'subscription_updated').data.attributes.renews_at).replace(/\.\d+/, '').replace(/\+00:00$|Z$/, 'Z');
    expect(await get(w, item.id)).toMatchObject({ status: 'active', seats: 3, paidUntil: renewsAt });
    await w.deliver('provider_b', 'subscription_cancelled');
    expect((await get(w, item.id)).status).toBe('canceled');
    await w.deliver('provider_b', 'subscription_expired');
    expect((await get(w, item.id)).status).toBe('expired');
    expect(w.smtp.messages).toHaveLength(1);
  });
});
