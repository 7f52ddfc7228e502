import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { signProviderB } from '@svc-licensing/provider-webhooks';
import type { RequestLogLine } from '../../src/index.js';
import { STORE_KINDS, type StoreKind } from '../support/stores.js';
import { createWorld, eventA, fixtureJson, readFixture, SECRET_B, type WorldOptions } from '../support/payment-world.js';

const world = (kind: StoreKind, options: WorldOptions & { mode?: 'in-process' | 'node-server' } = {}) => {
  const { mode = 'in-process', ...rest } = options;
  return createWorld({ mode, store: kind }, rest);
};

for (const kind of STORE_KINDS) {
  describe(`replayed and aborted webhook deliveries (${kind})`, () => {
    it('logs one audit event per provider event and outcome: replays of a signed provider_b delivery add one duplicate event, then nothing', async () => {
      const w = await world(kind);
      const order = readFixture('provider_b', 'order_created'); // variant 418823 maps to the lifetime plan
      const first = await w.deliver('provider_b', order);
      expect(first.body.result).toBe('processed');
      // An event the price map does not know is ignored, and still logged.
      const unmapped = fixtureJson('provider_b', 'order_created');
      unmapped.meta.webhook_id = 'a-second-delivery';
      unmapped.data.id = '4412094';
      unmapped.data.attributes.first_order_item.variant_id = 999_999;
      expect((await w.deliver('provider_b', unmapped)).body.result).toBe('ignored');

      for (let i = 0; i < 40; i++) {
        const again = await w.deliver('provider_b', i % 2 === 0 ? order : JSON.stringify(unmapped));
        expect(again.status).toBe(200);
        expect(again.body.result).toBe('duplicate');
      }
      const received = (await w.events('webhook.received')).map((e) => e.data.result);
      expect(received).toEqual(['processed', 'ignored', 'duplicate', 'duplicate']);
      expect(await w.licenses()).toHaveLength(1);
    });

    it('logs a delivery refused the same way once: replays of a payment for a revoked license add one audit event', async () => {
      const w = await world(kind);
      await w.deliver('provider_a', 'customer.created');
      await w.deliver('provider_a', 'transaction.completed.subscription');
      const [license] = await w.licenses();
      expect((await w.api('POST', `/licenses/${license.id}/revoke`)).status).toBe(200);
      const renewal = eventA('transaction.completed.subscription', { eventId: 'evt_after_revoke', occurredAt: '2024-04-20T00:00:00.000000Z' });
      renewal.data.id = 'txn_after_revoke';
      for (let i = 0; i < 20; i++) {
        const refused = await w.deliver('provider_a', renewal);
        expect(refused.status).toBe(409);
        expect(refused.body.error.code).toBe('conflict');
      }
      // Another refused event is logged too (once).
      const other = eventA('transaction.completed.subscription', { eventId: 'evt_after_revoke_2', occurredAt: '2024-04-21T00:00:00.000000Z' });
      other.data.id = 'txn_after_revoke_2';
      for (let i = 0; i < 3; i++) expect((await w.deliver('provider_a', other)).status).toBe(409);
      const refusedEvents = (await w.events('webhook.received')).filter((e) => e.data.result === 'conflict');
      expect(refusedEvents).toHaveLength(2);
      expect((await w.api('GET', `/licenses/${license.id}`)).body.status).toBe('revoked');
    });

    it('logs an upload the client aborts as a 499 line without a stack, never 500 internal_error', async () => {
      const lines: RequestLogLine[] = [];
      const w = await world(kind, { mode: 'node-server', log: (line) => void lines.push(line) });
      const body = readFixture('provider_b', 'order_created');
      const { port } = new URL(w.serverUrl!);
      const path = `/v1/webhooks/provider_b/${w.integrationB}`;
      await new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(
            `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
              `X-Signature: ${signProviderB(body, SECRET_B)}\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 100)}`,
          );
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 100);
        });
        socket.on('error', reject);
      });
      await expect.poll(() => lines.find((l) => l.path === path), { timeout: 5_000 }).toBeDefined();
      const line = lines.find((l) => l.path === path)!;
      expect(line).toMatchObject({ method: 'POST', status: 499, error: 'invalid_request' });
      expect(line.cause).toBeUndefined();
      expect(lines.some((l) => l.status >= 500)).toBe(false);
      // Nothing was processed: the complete delivery afterwards creates the license.
      expect((await w.deliver('provider_b', body)).body.result).toBe('processed');
    });
  });
}
