import { expect, it } from 'vitest';
import { machineFingerprint } from '@svc-licensing/cert-format';
import { verifyCertificate, verifyRevocationList } from '@svc-licensing/verifier';
import { createWorld, eventA, fixtureJson, type World } from '../support/payment-world.js';
import { describeEveryStore } from '../support/harness.js';

const ONE_TIME_TXN = 'txn_01hv8wptq3fpj5ek4xm5p3khb0';

/** provider_a: the customer is announced, then pays once for the lifetime price. */
async function buyOnceA(w: World) {
  expect((await w.deliver('provider_a', 'customer.created')).status).toBe(200);
  const answer = await w.deliver('provider_a', 'transaction.completed');
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const [license] = await w.licenses();
  return { answer, license: (await w.api('GET', `/licenses/${license.id}`)).body };
}

/** An adjustment fixture aimed at the one-time transaction. */
function adjustmentOfPurchase(name: string, eventId: string) {
  const body = eventA(name, { eventId });
  body.data.transaction_id = ONE_TIME_TXN;
  body.data.subscription_id = null;
  return body;
}

/** Activates machine `m1` and answers how the product's served list judges its certificate, before and after `change`. */
async function listedByChange(w: World, key: string, change: () => Promise<void>): Promise<{ before: string; after: string; seqs: [number, number] }> {
  const fp = machineFingerprint(w.productId, 'm1');
  const activated = await w.client('activate', { product: w.productId, key, fingerprint: fp });
  expect(activated.status, JSON.stringify(activated.body)).toBe(200);
  const keys = (await w.api('GET', `/products/${w.productId}/keys`)).body.data as { kid: string; publicKey: string }[];
  const publicKeys = Object.fromEntries(keys.map((k) => [k.kid, k.publicKey]));
  const judged = async () => {
    const res = await w.harness.fetch(`/v1/products/${encodeURIComponent(w.productId)}/revocations`);
    const checked = await verifyRevocationList((await res.text()).trimEnd(), { publicKeys, product: w.productId });
    if (checked.outcome !== 'valid') throw new Error(`the served list is ${checked.outcome}`);
    const now = Math.floor(w.harness.clock.now() / 1000);
    const verified = await verifyCertificate(activated.body.certificate, { publicKeys, product: w.productId, fingerprint: fp, appMajor: 1, now, revocations: checked.list });
    return { outcome: verified.outcome, seq: checked.list.seq };
  };
  const before = await judged();
  await change();
  const after = await judged();
  return { before: before.outcome, after: after.outcome, seqs: [before.seq, after.seq] };
}

describeEveryStore('one-time purchases', (setup) => {
  it('provider_a: a one-time purchase gives a perpetual license and e-mails its key', async () => {
    const w = await createWorld(setup);
    const { answer, license } = await buyOnceA(w);
    expect(answer.body).toEqual({ result: 'processed', detail: expect.any(String), keyEmail: 'sent' });
    expect(license).toMatchObject({
      status: 'perpetual',
      plan: 'lifetime',
      provider: 'provider_a',
      paidUntil: null,
      validUntil: null,
      seats: 1,
      customer: { email: 'ada@example.com' },
    });

    const [mail] = await w.smtp.waitFor(1);
    expect(mail!.envelope.to).toEqual(['ada@example.com']);
    expect(mail!.mail.from?.value).toEqual([{ name: 'Acme Licensing', address: 'licenses@acme.test' }]);
    expect(mail!.mail.replyTo?.value[0]?.address).toBe('support@acme.test');
    expect(mail!.mail.subject).toBe('Your license key for Acme Editor');
    expect(mail!.mail.headers.get('content-language')).toBe('en');
    expect(mail!.mail.text).toContain(license.key);
    expect(mail!.mail.html).toContain(license.key);

    // The e-mailed key works in the application.
    const activated = await w.client('activate', { product: w.productId, key: license.key, fingerprint: machineFingerprint(w.productId, 'm1') });
    expect(activated.status).toBe(200);
    expect(activated.body.certificate).toMatch(/^CRT1\./);
  });

  it('provider_b: a paid order gives a perpetual license, e-mailed in the license locale (French)', async () => {
    const w = await createWorld(setup, { defaultLocale: 'fr' });
    const answer = await w.deliver('provider_b', 'order_created');
    expect(answer.body).toMatchObject({ result: 'processed', keyEmail: 'sent' });
    const [item] = await w.licenses();
    const license = (await w.api('GET', `/licenses/${item.id}`)).body;
    expect(license).toMatchObject({ status: 'perpetual', plan: 'lifetime', provider: 'provider_b', customer: { email: 'grace@example.com' } });

    const [mail] = await w.smtp.waitFor(1);
    expect(mail!.envelope.to).toEqual(['grace@example.com']);
    expect(mail!.mail.subject).toBe('Votre clé de licence pour Acme Editor');
    expect(mail!.mail.headers.get('content-language')).toBe('fr');
    expect(mail!.mail.text).toContain('Bonjour');
    expect(mail!.mail.text).toContain(license.key);
  });

  it('a partial refund changes nothing; a full refund makes the license refunded', async () => {
    const w = await createWorld(setup);
    const { license } = await buyOnceA(w);
    const partial = await w.deliver('provider_a', adjustmentOfPurchase('adjustment.updated.partial', 'evt_partial_1'));
    expect(partial.status).toBe(200);
    expect((await w.api('GET', `/licenses/${license.id}`)).body.status).toBe('perpetual');

    const full = await w.deliver('provider_a', adjustmentOfPurchase('adjustment.updated', 'evt_full_1'));
    expect(full.body.result).toBe('processed');
    expect((await w.api('GET', `/licenses/${license.id}`)).body.status).toBe('refunded');
    const refused = await w.client('validate', { product: w.productId, key: license.key, fingerprint: machineFingerprint(w.productId, 'm1') });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('license_refunded');
  });

  it('a pending refund request changes nothing until it is approved', async () => {
    const w = await createWorld(setup);
    const { license } = await buyOnceA(w);
    await w.deliver('provider_a', adjustmentOfPurchase('adjustment.created', 'evt_pending_1'));
    expect((await w.api('GET', `/licenses/${license.id}`)).body.status).toBe('perpetual');
  });

  it('provider_b: a fully refunded order makes its license refunded', async () => {
    const w = await createWorld(setup);
    await w.deliver('provider_b', 'order_created');
    const refunded = await w.deliver('provider_b', 'order_refunded');
    expect(refunded.body.result).toBe('processed');
    const [license] = await w.licenses();
    expect(license.status).toBe('refunded');
  });

  it('a full refund and a chargeback each put the license on its product\'s signed revocation list, which offline machines then refuse', async () => {
    for (const [name, eventId] of [['adjustment.updated', 'evt_full_rvl'], ['adjustment.created.chargeback', 'evt_cb_rvl']] as const) {
      const w = await createWorld(setup);
      const { license } = await buyOnceA(w);
      const judged = await listedByChange(w, license.key, async () => {
        expect((await w.deliver('provider_a', adjustmentOfPurchase(name, eventId))).body.result).toBe('processed');
      });
      expect(judged.before, name).toBe('valid');
      expect(judged.after, name).toBe('revoked');
      expect(judged.seqs[1], name).toBeGreaterThan(judged.seqs[0]);
    }
  });

  it('a chargeback revokes the license for good', async () => {
    const w = await createWorld(setup);
    const { license } = await buyOnceA(w);
    const charged = await w.deliver('provider_a', adjustmentOfPurchase('adjustment.created.chargeback', 'evt_cb_1'));
    expect(charged.body.result).toBe('processed');
    expect((await w.api('GET', `/licenses/${license.id}`)).body.status).toBe('revoked');
    // A later refund event changes nothing, and the vendor cannot reinstate it.
    await w.deliver('provider_a', adjustmentOfPurchase('adjustment.updated', 'evt_full_after_cb'));
    expect((await w.api('GET', `/licenses/${license.id}`)).body.status).toBe('revoked');
    expect((await w.api('POST', `/licenses/${license.id}/reinstate`)).status).toBe(409);
    const refused = await w.client('activate', { product: w.productId, key: license.key, fingerprint: machineFingerprint(w.productId, 'm1') });
    expect(refused.body.error.code).toBe('license_revoked');
  });

  it('provider_b: an unpaid order creates nothing', async () => {
    const w = await createWorld(setup);
    const pending = fixtureJson('provider_b', 'order_created');
    pending.data.attributes.status = 'pending';
    const answer = await w.deliver('provider_b', pending);
    expect(answer.status).toBe(200);
    expect(answer.body.result).toBe('ignored');
    expect(await w.licenses()).toEqual([]);
    expect(w.smtp.messages).toHaveLength(0);
  });
});
