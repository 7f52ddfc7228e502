import { describe, expect, it } from 'vitest';
import { signProviderA } from '@svc-licensing/provider-webhooks';
import { SETUPS } from '../support/harness.js';
import { createWorld, eventA, readFixture, SECRET_A } from '../support/payment-world.js';

for (const setup of SETUPS) {
  describe(`webhook receiver: signature, integration and outcomes (${setup.mode}, ${setup.store})`, () => {
    it('answers 401 to a missing, wrong, stale or foreign signature and processes nothing', async () => {
      const w = await createWorld(setup);
      const raw = readFixture('provider_b', 'order_created');
      const a = readFixture('provider_a', 'customer.created');
      const ts = Math.floor(w.clock.now() / 1000);
      const refused = [
        await w.deliver('provider_b', raw, { signature: null }),
        await w.deliver('provider_b', raw, { secret: 'not-the-secret' }),
        await w.deliver('provider_b', raw, { signature: 'zz' }),
        await w.deliver('provider_a', a, { signature: null }),
        await w.deliver('provider_a', a, { signature: signProviderA(a, SECRET_A, ts - 301) }),
        await w.deliver('provider_a', a, { signature: signProviderA(a, 'other', ts) }),
        await w.deliver('provider_a', a.replace('ada@example.com', 'eve@example.com'), { signature: signProviderA(a, SECRET_A, ts) }),
      ];
      for (const answer of refused) {
        expect(answer.status).toBe(401);
        expect(answer.body.error.code).toBe('unauthorized');
      }
      expect(await w.licenses()).toEqual([]);
      expect(w.smtp.messages).toHaveLength(0);
      expect(await w.events('webhook.received')).toEqual([]);
      // The same bytes, properly signed, go through.
      expect((await w.deliver('provider_b', raw)).status).toBe(200);
      expect(await w.licenses()).toHaveLength(1);
    });

    it('refuses every delivery with 401 until the secret is saved, then accepts it', async () => {
      const w = await createWorld(setup, { secrets: false });
      const refused = await w.deliver('provider_b', 'order_created');
      expect(refused.status).toBe(401);
      expect(await w.licenses()).toEqual([]);
      const integration = await w.api('GET', `/integrations/${w.integrationB}`);
      expect(integration.body.hasWebhookSecret).toBe(false);

      const patched = await w.api('PATCH', `/integrations/${w.integrationB}`, { webhookSecret: 'ls_test_secret_b' });
      expect(patched.status).toBe(200);
      expect(patched.body.hasWebhookSecret).toBe(true);
      expect(JSON.stringify(patched.body)).not.toContain('ls_test_secret_b');
      const accepted = await w.deliver('provider_b', 'order_created');
      expect(accepted.status).toBe(200);
      expect(accepted.body.result).toBe('processed');
    });

    it('a replaced webhook secret holds at once on every instance, also on one that verified deliveries with the old one', async () => {
      const w = await createWorld(setup, { peer: true });
      const customer = (eventId: string) => eventA('customer.created', { eventId });
      expect((await w.deliver('provider_a', customer('evt_rotate_1'), { peer: true })).status).toBe(200);
      // Replaced through the other instance.
      expect((await w.api('PATCH', `/integrations/${w.integrationA}`, { webhookSecret: 'pdl_ntfset_rotated' })).status).toBe(200);
      const old = await w.deliver('provider_a', customer('evt_rotate_2'), { peer: true });
      expect(old.status).toBe(401);
      expect(old.body.error.code).toBe('unauthorized');
      const rotated = await w.deliver('provider_a', customer('evt_rotate_3'), { peer: true, secret: 'pdl_ntfset_rotated' });
      expect(rotated.status).toBe(200);
      expect(rotated.body.result).toBe('processed');
      expect((await w.events('webhook.received')).map((e) => e.data.detail)).toHaveLength(2);
      // Deleted through the other instance: 404 at once, even with the current secret.
      expect((await w.api('DELETE', `/integrations/${w.integrationA}`)).status).toBe(200);
      const gone = await w.deliver('provider_a', customer('evt_rotate_4'), { peer: true, secret: 'pdl_ntfset_rotated' });
      expect(gone.status).toBe(404);
      expect((await w.events('webhook.received'))).toHaveLength(2);
    });

    it('answers 404 for an unknown integration, a deleted one, or the other provider’s path', async () => {
      const w = await createWorld(setup);
      expect((await w.deliver('provider_b', 'order_created', { integrationId: 'int_00000000000000000000000000' })).status).toBe(404);
      expect((await w.deliver('provider_b', 'order_created', { path: `/v1/webhooks/provider_a/${w.integrationB}` })).status).toBe(404);
      expect((await w.deliver('provider_b', 'order_created', { path: `/v1/webhooks/provider_c/${w.integrationB}` })).status).toBe(404);
      expect((await w.api('DELETE', `/integrations/${w.integrationB}`)).status).toBe(200);
      const gone = await w.deliver('provider_b', 'order_created');
      expect(gone.status).toBe(404);
      expect(gone.body.error.code).toBe('not_found');
      expect(await w.licenses()).toEqual([]);
    });

    it('answers a repeated event ID with 200 duplicate and changes nothing', async () => {
      const w = await createWorld(setup);
      const first = await w.deliver('provider_b', 'order_created');
      expect(first).toMatchObject({ status: 200, body: { result: 'processed', keyEmail: 'sent' } });
      const again = await w.deliver('provider_b', 'order_created');
      expect(again).toMatchObject({ status: 200, body: { result: 'duplicate' } });
      expect(await w.licenses()).toHaveLength(1);
      expect(w.smtp.messages).toHaveLength(1);
    });

    it('answers a price absent from the price map with 200 ignored and an audit event', async () => {
      const w = await createWorld(setup);
      await w.deliver('provider_a', 'customer.created');
      const body = eventA('transaction.completed');
      body.data.items[0].price.id = 'pri_not_mapped';
      const answer = await w.deliver('provider_a', body);
      expect(answer).toMatchObject({ status: 200, body: { result: 'ignored' } });
      expect(await w.licenses()).toEqual([]);
      const audit = await w.events('webhook.received');
      expect(audit.at(-1)?.data).toMatchObject({ provider: 'provider_a', eventType: 'transaction.completed', result: 'ignored' });
      expect(String(audit.at(-1)?.data.detail)).toContain('pri_not_mapped');
    });

    it('logs every delivery as webhook.received with provider, eventType, result and detail', async () => {
      const w = await createWorld(setup);
      await w.deliver('provider_a', 'customer.created');
      await w.deliver('provider_a', 'transaction.completed');
      await w.deliver('provider_a', 'transaction.completed');
      await w.deliver('provider_b', 'order_created');
      const audit = await w.events('webhook.received');
      expect(audit.map((e) => [e.data.provider, e.data.eventType, e.data.result])).toEqual([
        ['provider_a', 'customer.created', 'processed'],
        ['provider_a', 'transaction.completed', 'processed'],
        ['provider_a', 'transaction.completed', 'duplicate'],
        ['provider_b', 'order_created', 'processed'],
      ]);
      for (const e of audit) expect(typeof e.data.detail).toBe('string');
    });

    it('verifies and processes a large signed body that arrives in many chunks, byte for byte', async () => {
      const w = await createWorld(setup);
      const body = eventA('customer.created');
      // About 600 KiB of multi-byte text: many TCP reads, and a signature over the exact bytes.
      body.data.custom_data = { padding: 'ß€'.repeat(120_000) };
      const answer = await w.deliver('provider_a', body);
      expect(answer.status).toBe(200);
      expect(answer.body.result).toBe('processed');
    });

    it('refuses a body over 1 MiB with 413 before reading it', async () => {
      const w = await createWorld(setup);
      const body = eventA('customer.created');
      body.data.custom_data = { padding: 'x'.repeat(1024 * 1024) };
      const answer = await w.deliver('provider_a', body);
      expect(answer.status).toBe(413);
      expect(answer.body.error.code).toBe('invalid_request');
      expect(await w.events('webhook.received')).toEqual([]);
    });

    it('answers a signed body it cannot read with 500 and changes nothing', async () => {
      const w = await createWorld(setup);
      const body = eventA('transaction.completed');
      delete body.data.items;
      const answer = await w.deliver('provider_a', body);
      expect(answer.status).toBe(500);
      expect(answer.body.error.code).toBe('internal_error');
      expect(await w.licenses()).toEqual([]);
      const notJson = await w.deliver('provider_b', '{"meta": ');
      expect(notJson.status).toBe(500);
    });
  });
}
