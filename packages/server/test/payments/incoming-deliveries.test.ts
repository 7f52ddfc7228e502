import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLicenseEngine, createMemoryStore, createSecretBox, type IncomingDeliveryEntry } from '@svc-licensing/license-engine';
import { signProviderB } from '@svc-licensing/provider-webhooks';
import { createKeyEmailSender } from '../../src/key-email.js';
import { createFileMailer } from '../../src/mail/file-mailer.js';
import { purgeNow } from '../../src/purge-job.js';
import { INCOMING_REPEATS_FLUSH_MS } from '../../src/webhooks/incoming-log.js';
import { createWebhookReceiver } from '../../src/webhooks/receiver.js';
import { describeEveryStore } from '../support/harness.js';
import { createWorld, readFixture, type World } from '../support/payment-world.js';

// The incoming delivery log (issue 28): every provider delivery to an integration, refused ones
// with the reason the receiver found, grouped by result, reason and minute so that a flood adds to
// a count instead of rows, written at a bounded rate.

const folders: string[] = [];
afterEach(async () => {
  for (const dir of folders.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** The integration's log through the API, newest row first. */
async function logOf(w: World, integrationId: string): Promise<any[]> {
  const page = await w.api('GET', `/integrations/${integrationId}/deliveries`);
  expect(page.status, JSON.stringify(page.body)).toBe(200);
  return page.body.data;
}

describe('the receiver writes the incoming log at a bounded rate', () => {
  it('writes a flood of refused deliveries as one write at its start and one for its repeats, whatever its size', async () => {
    let time = Date.parse('2024-06-05T12:40:05Z');
    const clock = { now: () => time };
    const engine = createLicenseEngine({ store: createMemoryStore(), secrets: createSecretBox(new Uint8Array(randomBytes(32))), clock });
    const { account } = await engine.createAccount({ name: 'Acme', ownerEmail: 'owner@acme.test', servicePlan: 'unlimited' });
    const product = await engine.createProduct(account.id, { name: 'Acme Editor', keyPrefix: 'ACME' });
    await engine.createPlan(account.id, product.id, { code: 'pro', kind: 'subscription' });
    const integration = await engine.createIntegration(account.id, { provider: 'provider_b', product: product.id, priceMap: { '418830': 'pro' }, webhookSecret: 'right' });
    const outbox = await mkdtemp(join(tmpdir(), 'svc-incoming-'));
    folders.push(outbox);
    const keyEmails = createKeyEmailSender({ engine, mailer: createFileMailer({ dir: outbox }), sender: { fromAddress: 'no-reply@svc.test' } });
    const writes: IncomingDeliveryEntry[][] = [];
    const counted = { ...engine, recordIncomingDeliveries: (entries: readonly IncomingDeliveryEntry[]) => (writes.push([...entries]), engine.recordIncomingDeliveries(entries)) };
    const receiver = createWebhookReceiver({ keyEmails, clock });
    const raw = readFixture('provider_b', 'order_created');
    const deliver = () =>
      receiver.receive(counted, {
        provider: 'provider_b', integrationId: integration.id, headers: new Headers({ 'x-signature': signProviderB(raw, 'wrong') }), body: async () => new TextEncoder().encode(raw),
      });

    const answers = [];
    for (let i = 0; i < 150; i++) answers.push(await deliver()); // one after another
    answers.push(...(await Promise.all(Array.from({ length: 50 }, deliver)))); // and at once
    expect(answers.every((a) => !a.ok && a.refusal.code === 'unauthorized' && a.refusal.reason === 'signature_mismatch')).toBe(true);
    expect(writes).toHaveLength(1);
    await vi.waitFor(() => expect(writes).toHaveLength(2), { timeout: INCOMING_REPEATS_FLUSH_MS + 3000, interval: 100 });
    expect(writes[1]!.map((e) => e.count)).toEqual([199]);
    const [row, ...others] = (await engine.listIncomingDeliveries(account.id, integration.id)).data;
    expect(others).toEqual([]);
    expect(row).toMatchObject({ result: 'refused', status: 401, reason: 'signature_mismatch', count: 200, eventId: null, eventType: null });

    // The next minute is a group of its own, written at its first delivery.
    time += 60_000;
    await deliver();
    expect(writes).toHaveLength(3);
    expect((await engine.listIncomingDeliveries(account.id, integration.id)).data.map((r) => r.count)).toEqual([1, 200]);
  });
});

describeEveryStore('the incoming delivery log over HTTP', (setup) => {
  it('lists every delivery to an integration, refused ones with the reason, and nothing for an unknown integration', async () => {
    const w = await createWorld(setup);
    const b = w.integrationB;
    const processed = await w.deliver('provider_b', 'order_created');
    expect(processed.body.result).toBe('processed');
    expect((await w.deliver('provider_b', 'order_created')).body.result).toBe('duplicate');
    const wrong = await Promise.all(Array.from({ length: 12 }, () => w.deliver('provider_b', 'order_created', { secret: 'not-the-secret' })));
    expect(wrong.map((a) => a.status)).toEqual(Array(12).fill(401));
    expect((await w.deliver('provider_b', 'order_created', { signature: null })).status).toBe(401);
    const huge = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });
    expect((await w.deliver('provider_b', huge)).status).toBe(413);
    // An integration ID of no account: the server log only.
    const unknown = await w.deliver('provider_b', 'order_created', { integrationId: 'int_00000000000000000000000000' });
    expect(unknown.status).toBe(404);
    expect(w.harness.logLines.some((l) => l.path === '/v1/webhooks/provider_b/int_00000000000000000000000000' && l.status === 404)).toBe(true);

    await vi.waitFor(async () => expect((await logOf(w, b)).find((r) => r.reason === 'signature_mismatch')?.count).toBe(12), { timeout: 8000, interval: 200 });
    const rows = await logOf(w, b);
    expect(rows.map((r) => [r.result, r.status, r.reason, r.count])).toEqual([
      ['refused', 413, 'body_too_large', 1],
      ['refused', 401, 'missing_header', 1],
      ['refused', 401, 'signature_mismatch', 12],
      ['duplicate', 200, null, 1],
      ['processed', 200, null, 1],
    ]);
    const mismatch = rows[2];
    expect(mismatch.message).toBe(wrong[0]!.body.error.message);
    expect(mismatch).toMatchObject({ eventType: null, eventId: null, integration: b }); // an unverified body is not believed
    expect(rows[4]).toMatchObject({ eventType: 'order_created', eventId: rows[3].eventId });
    expect(rows[4].eventId).toBeTruthy();
    expect(await logOf(w, w.integrationA)).toEqual([]);

    // Members read it; another account does not see the integration.
    const member = await w.harness.signIn({ accountId: w.accountId, role: 'member' });
    const asMember = await w.harness.api('GET', `/integrations/${b}/deliveries`, undefined, { session: member });
    expect(asMember.status).toBe(200);
    expect(asMember.body.data).toHaveLength(5);
    const other = await w.harness.newAccount();
    expect((await w.harness.api('GET', `/integrations/${b}/deliveries`, undefined, { key: other.apiKey })).status).toBe(404);

    // Kept 30 days: the purge job (what `serve` runs daily) deletes the rows after that.
    w.clock.advance(30 * 86_400_000 - 60_000);
    await purgeNow({ engine: w.engine, store: w.harness.store() });
    expect(await logOf(w, b)).toHaveLength(5);
    w.clock.advance(120_000);
    await purgeNow({ engine: w.engine, store: w.harness.store() });
    expect(await logOf(w, b)).toEqual([]);
  });

  it('adds up the deliveries two servers refused at the same moment in one row', async () => {
    const w = await createWorld(setup, { peer: true });
    const sends = Array.from({ length: 20 }, (_, i) => w.deliver('provider_b', 'order_created', { secret: 'wrong', peer: i % 2 === 1 }));
    expect((await Promise.all(sends)).map((a) => a.status)).toEqual(Array(20).fill(401));
    await vi.waitFor(async () => expect((await logOf(w, w.integrationB)).map((r) => r.count)).toEqual([20]), { timeout: 8000, interval: 200 });
  });
});
