import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLicenseEngine, createMemoryStore, createSecretBox, DEFAULT_SERVICE_PLANS, type LicenseEngine } from '@svc-licensing/license-engine';
import { describeSignatureFailure, signProviderB } from '@svc-licensing/provider-webhooks';
import { createKeyEmailSender } from '../../src/key-email.js';
import { createFileMailer } from '../../src/mail/file-mailer.js';
import { createWebhookReceiver, type WebhookAnswer, type WebhookReceiver } from '../../src/webhooks/receiver.js';
import { fixtureJson, readFixture } from '../support/payment-world.js';

// The receiver's logic without HTTP: a real engine on a memory store, real HMAC signatures, real
// key e-mails written by the file mailer. The HTTP answers are tested in webhook-receiver.test.ts.

const SECRET = 'ls_test_secret_b';
const tiny = { ...DEFAULT_SERVICE_PLANS, tiny: { productLimit: null, licenseLimit: null, keyEmailsPerHour: 1 } };
const folders: string[] = [];
afterEach(async () => {
  for (const dir of folders.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function setup(options: { servicePlan?: string } = {}) {
  let time = Date.parse('2024-06-05T12:40:00Z');
  const clock = { now: () => time, set: (iso: string) => void (time = Date.parse(iso)) };
  const engine = createLicenseEngine({ store: createMemoryStore(), secrets: createSecretBox(new Uint8Array(randomBytes(32))), clock, servicePlans: tiny });
  const { account } = await engine.createAccount({ name: 'Acme', ownerEmail: 'owner@acme.test', servicePlan: options.servicePlan ?? 'unlimited' });
  await engine.updateAccount(account.id, { senderName: 'Acme Licensing', senderEmail: 'licenses@acme.test' });
  const product = await engine.createProduct(account.id, { name: 'Acme Editor', keyPrefix: 'ACME' });
  await engine.createPlan(account.id, product.id, { code: 'pro', kind: 'subscription', maxActivations: 2 });
  await engine.createPlan(account.id, product.id, { code: 'lifetime', kind: 'perpetual', maxActivations: 1 });
  const integration = await engine.createIntegration(account.id, {
    provider: 'provider_b',
    product: product.id,
    priceMap: { '418830': 'pro', '418823': 'lifetime' },
    webhookSecret: SECRET,
  });
  const outbox = await mkdtemp(join(tmpdir(), 'svc-receiver-'));
  folders.push(outbox);
  const keyEmails = createKeyEmailSender({ engine, mailer: createFileMailer({ dir: outbox }), sender: { fromAddress: 'no-reply@svc.test' } });
  const errors: { error: unknown; what: string }[] = [];
  const newReceiver = () => createWebhookReceiver({ keyEmails, clock, onError: (error, context) => errors.push({ error, what: context.what }) });
  const receiver = newReceiver();
  let reads = 0;
  /** Signs `body` (a fixture name or an object) with `secret` and hands it to `to`. */
  const deliver = (body: string | Record<string, unknown>, opts: { secret?: string; to?: WebhookReceiver; provider?: string; integrationId?: string } = {}): Promise<WebhookAnswer> => {
    const raw = typeof body === 'string' ? readFixture('provider_b', body) : JSON.stringify(body);
    const headers = new Headers({ 'content-type': 'application/json', 'x-signature': signProviderB(raw, opts.secret ?? SECRET) });
    return (opts.to ?? receiver).receive(engine, {
      provider: opts.provider ?? 'provider_b',
      integrationId: opts.integrationId ?? integration.id,
      headers,
      body: async () => {
        reads++;
        return new TextEncoder().encode(raw);
      },
    });
  };
  const deliveries = async () =>
    (await engine.listEvents(account.id, {})).data.filter((e) => e.type === 'webhook.received').map((e) => e.data as Record<string, unknown>);
  return { engine, clock, account, integration, outbox, errors, receiver, newReceiver, deliver, deliveries, reads: () => reads };
}

const licensesOf = async (engine: LicenseEngine, accountId: string) => (await engine.listLicenses(accountId, {})).data;

/** A provider_b order of another ID and buyer than the fixture's. */
function otherOrder(id: string): Record<string, any> {
  const body = fixtureJson('provider_b', 'order_created');
  body.data.id = id;
  body.data.attributes.first_order_item.order_id = Number(id);
  body.data.attributes.user_email = `buyer-${id}@example.test`;
  return body;
}

describe('webhook receiver logic (no HTTP)', () => {
  it('answers not_found for an unknown provider or integration, or the other provider, without reading the body', async () => {
    const s = await setup();
    const notFound = { ok: false, refusal: { code: 'not_found', message: 'No integration with this ID for this provider.' } };
    expect(await s.deliver('order_created', { provider: 'provider_c' })).toEqual(notFound);
    expect(await s.deliver('order_created', { integrationId: 'int_missing' })).toEqual(notFound);
    expect(await s.deliver('order_created', { provider: 'provider_a' })).toEqual(notFound);
    expect(s.reads()).toBe(0);
    expect(await s.deliveries()).toEqual([]);
  });

  it('processes a purchase, sends the key e-mail it reserved, and answers a replay as a duplicate', async () => {
    const s = await setup();
    expect(await s.deliver('order_created')).toEqual({
      ok: true,
      reply: { result: 'processed', detail: expect.stringContaining('perpetual license created'), keyEmail: 'sent' },
    });
    expect(await readdir(s.outbox)).toHaveLength(1);
    expect(await s.deliver('order_created')).toEqual({ ok: true, reply: { result: 'duplicate', detail: expect.any(String) } });
    expect(await licensesOf(s.engine, s.account.id)).toHaveLength(1);
    expect(await readdir(s.outbox)).toHaveLength(1);
  });

  it('refuses a wrong signature as unauthorized and processes nothing', async () => {
    const s = await setup();
    const answer = await s.deliver('order_created', { secret: 'not-the-secret' });
    expect(answer).toEqual({ ok: false, refusal: { code: 'unauthorized', message: describeSignatureFailure('provider_b', 'signature_mismatch'), reason: 'signature_mismatch' } });
    expect(await licensesOf(s.engine, s.account.id)).toEqual([]);
    expect(await s.deliveries()).toEqual([]);
  });

  it('reads remembered secrets again when a delivery does not verify with them: a replaced secret holds at once', async () => {
    const s = await setup();
    expect((await s.deliver(otherOrder('1'))).ok).toBe(true); // the receiver now remembers SECRET
    await s.engine.updateIntegration(s.account.id, s.integration.id, { webhookSecret: 'ls_new_secret' });
    expect((await s.deliver(otherOrder('2'), { secret: 'ls_new_secret' })).ok).toBe(true);
    expect(await s.deliver(otherOrder('3'))).toMatchObject({ ok: false, refusal: { code: 'unauthorized' } });
  });

  it('verifies again when the engine refuses the secrets a delivery was verified with (secrets_changed), on another receiver too', async () => {
    const s = await setup();
    const other = s.newReceiver();
    expect((await s.deliver(otherOrder('1'), { to: other })).ok).toBe(true); // `other` remembers SECRET
    await s.engine.updateIntegration(s.account.id, s.integration.id, { webhookSecret: 'ls_new_secret' });
    // Signed with the old secret, it verifies with `other`'s remembered one; the engine refuses it
    // (secrets_changed), and verified with the current secret it is unauthorized.
    expect(await s.deliver(otherOrder('2'), { to: other })).toMatchObject({ ok: false, refusal: { code: 'unauthorized' } });
    expect(await licensesOf(s.engine, s.account.id)).toHaveLength(1);
    expect(s.errors).toEqual([]);
  });

  it('answers a payment for a revoked license with conflict, logged once as webhook.received', async () => {
    const s = await setup();
    expect((await s.deliver('subscription_created')).ok).toBe(true);
    const [license] = await licensesOf(s.engine, s.account.id);
    await s.engine.revokeLicense(s.account.id, license!.id);
    s.clock.set('2024-07-05T12:00:00Z');
    const answer = await s.deliver('subscription_updated');
    expect(answer).toEqual({ ok: false, refusal: { code: 'conflict', message: expect.stringContaining('revoked') } });
    expect(await s.deliver('subscription_updated')).toEqual(answer);
    expect((await s.deliveries()).map((d) => d.result)).toEqual(['conflict', 'processed']);
    expect(s.errors).toEqual([]);
  });

  it('answers a spent key e-mail budget with rate_limited and the seconds to the next hour, writing nothing', async () => {
    const s = await setup({ servicePlan: 'tiny' });
    expect((await s.deliver(otherOrder('1'))).ok).toBe(true);
    expect(await s.deliver(otherOrder('2'))).toEqual({
      ok: false,
      refusal: { code: 'rate_limited', message: "The service plan's hourly budget of license-key e-mails is used up; retry later.", retryAfter: 20 * 60 },
    });
    expect(await licensesOf(s.engine, s.account.id)).toHaveLength(1);
    expect((await s.deliveries())[0]).toMatchObject({ result: 'rate_limited', detail: expect.stringContaining('hourly budget') });
  });

  it('answers a signed body it cannot read with internal_error and logs it as an error with its event name', async () => {
    const s = await setup();
    const answer = await s.deliver({ meta: { event_name: 'order_created' }, data: { type: 'orders' } });
    expect(answer).toMatchObject({ ok: false, refusal: { code: 'internal_error', message: expect.stringMatching(/^The event could not be read \(.+\)\.$/) } });
    expect(await s.deliveries()).toEqual([expect.objectContaining({ provider: 'provider_b', eventType: 'order_created', result: 'error' })]);
    expect(await licensesOf(s.engine, s.account.id)).toEqual([]);
  });
});
