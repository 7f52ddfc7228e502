import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { AUDIT_EVENT_TYPES } from '@svc-licensing/license-engine';
import { RETRY_DELAYS_MS } from '../../src/notifications/index.js';
import { STORE_KINDS } from '../support/stores.js';
import { key, productAndPlan, world } from './support/api-world.js';

// Through the HTTP API and a store as `serve` runs them: an endpoint registered by the owner, a
// change made over the API, and a real HTTPS receiver that verifies each delivery with the
// standardwebhooks package (the world: support/api-world.ts).

describe.each(STORE_KINDS)('notifications end to end (%s)', (store) => {
  it('delivers a change made over the API, signed and verified by standardwebhooks, with the body the OpenAPI document publishes', async () => {
    const w = await world(store);
    const endpoint = await w.endpoint({ events: ['license.created', 'activation.created'] });
    const plan = await productAndPlan(w);
    const license = await w.post('/v1/licenses', { plan, email: 'buyer@example.com' }, key(w));
    await w.until(() => w.receiver.received.length === 1, 'the delivery');
    const [delivery] = w.receiver.received;
    expect(delivery!.verifiedWith).toEqual([endpoint.secret]);
    const payload = delivery!.payload as { type: string; data: Record<string, any> };
    expect(payload.type).toBe('license.created');
    expect(payload.data).toMatchObject({ id: license.body.id, status: 'perpetual', customer: { email: 'buyer@example.com' } });
    expect(payload.data.event).toMatchObject({ type: 'license.created', license: license.body.id, data: { plan: 'life', source: 'vendor' } });
    const events = await w.get(`/v1/events?license=${license.body.id}`);
    expect(payload.data.event.id).toBe(events.data[0].id);

    const doc = await w.get('/v1/openapi.json');
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    ajv.addKeyword({ keyword: 'components' });
    const schema = doc.webhooks['license.created'].post.requestBody.content['application/json'].schema;
    const validate = ajv.compile({ ...schema, components: doc.components });
    expect(validate(JSON.parse(delivery!.body)), JSON.stringify(validate.errors)).toBe(true);
    expect(Object.keys(doc.webhooks).sort()).toEqual([...(await import('@svc-licensing/license-engine')).AUDIT_EVENT_TYPES, 'webhook_endpoint.test'].sort());

    // The log shows the attempt; the webhook-id is the delivery's id, the same on a resend.
    await w.until(async () => (await w.get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`)).data[0]?.status === 'delivered', 'the log');
    const log = await w.get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`);
    expect(log.data[0]).toMatchObject({ id: delivery!.headers['webhook-id'], type: 'license.created', status: 'delivered', nextAttemptAt: null });
    expect(log.data[0].attempts).toEqual([{ at: expect.any(String), status: 204, latencyMs: expect.any(Number), ok: true, error: null, message: null, response: '' }]);
    expect((await w.post(`/v1/webhook-endpoints/${endpoint.id}/deliveries/${log.data[0].id}/resend`)).status).toBe(202);
    await w.until(() => w.receiver.received.length === 2, 'the resend');
    expect(w.receiver.received[1]!.headers['webhook-id']).toBe(delivery!.headers['webhook-id']);
    expect(w.receiver.received[1]!.body).toBe(delivery!.body);

    // The test notification; a type the endpoint does not take (signing keys) is not sent.
    await w.post(`/v1/products/${payload.data.product}/keys`, undefined, key(w));
    expect((await w.post(`/v1/webhook-endpoints/${endpoint.id}/test`)).status).toBe(202);
    await w.until(() => w.receiver.received.length === 3, 'the test notification');
    expect(w.receiver.received[2]!.payload).toMatchObject({ type: 'webhook_endpoint.test', data: { id: endpoint.id, url: w.receiver.url('/hooks/svc') } });
    expect(w.receiver.received[2]!.verifiedWith).toEqual([endpoint.secret]);
  });

  it('the owner and API keys manage endpoints; a member only reads them and their logs', async () => {
    const w = await world(store);
    const member = (await w.h.signIn({ role: 'member' })).headers;
    const url = w.receiver.url('/hooks/svc');
    expect((await w.post('/v1/webhook-endpoints', { url }, member)).status).toBe(403);
    const byKey = await w.post('/v1/webhook-endpoints', { url }, key(w));
    expect(byKey.status).toBe(201);
    expect(byKey.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const listed = await w.h.fetch('/v1/webhook-endpoints', { headers: member });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(await listed.json())).not.toContain('whsec_');
    expect((await w.post(`/v1/webhook-endpoints/${byKey.body.id}/rotate-secret`, undefined, member)).status).toBe(403);
    expect((await w.post(`/v1/webhook-endpoints/${byKey.body.id}/test`, undefined, member)).status).toBe(403);
    expect((await w.h.fetch(`/v1/webhook-endpoints/${byKey.body.id}/deliveries`, { headers: member })).status).toBe(200);
    const deleted = await w.h.fetch(`/v1/webhook-endpoints/${byKey.body.id}`, { method: 'DELETE', headers: member });
    expect(deleted.status).toBe(403);
  });

  it('an endpoint subscribes to every notification event type, and to no security event type', async () => {
    const w = await world(store);
    const every = await w.endpoint({ events: [...AUDIT_EVENT_TYPES] });
    expect((await w.get(`/v1/webhook-endpoints/${every.id}`)).events).toEqual([...AUDIT_EVENT_TYPES]);
    const security = await w.post('/v1/webhook-endpoints', { url: w.receiver.url('/hooks/svc'), events: ['api_key.created'] });
    expect(security.status).toBe(400);
    expect(security.body.error.code).toBe('invalid_request');
  });

  it('signs with the old and the new secret for 24 hours after a rotation, then with the new one only', async () => {
    const w = await world(store);
    const endpoint = await w.endpoint();
    const rotated = await w.post(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    w.receiver.secrets.push(rotated.body.secret);
    const product = (await w.post('/v1/products', { name: 'One', keyPrefix: 'ONE' }, key(w))).body;
    const pending = (await w.post(`/v1/products/${product.id}/keys`, undefined, key(w))).body;
    await w.post(`/v1/products/${product.id}/keys/${pending.kid}/activate`, undefined, key(w));
    await w.until(() => w.receiver.received.length === 2, 'two signing-key events');
    expect(w.receiver.received.map((r) => (r.payload as { type: string }).type)).toEqual(['signing_key.created', 'signing_key.rotated']);
    expect(w.receiver.received.map((r) => r.verifiedWith)).toEqual([[endpoint.secret, rotated.body.secret], [endpoint.secret, rotated.body.secret]]);
    w.h.clock.advance(24 * 3600_000);
    await w.post(`/v1/products/${product.id}/keys`, undefined, key(w));
    await w.until(() => w.receiver.received.length === 3, 'the event after the overlap');
    expect(w.receiver.received[2]!.verifiedWith).toEqual([rotated.body.secret]);
  });

  it('a receiver down for two days gets everything afterwards, retried on the backoff schedule', async () => {
    const w = await world(store);
    const endpoint = await w.endpoint();
    let up = false;
    w.receiver.handle = (_request, response) => void response.writeHead(up ? 204 : 503).end(up ? '' : 'down');
    const plan = await productAndPlan(w);
    const start = w.h.clock.now();
    for (let i = 0; i < 3; i++) await w.post('/v1/licenses', { plan, email: `buyer${i}@example.com` }, key(w));
    const logOf = async () => (await w.get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`)).data as any[];
    // Creating a product and a plan is not audited: the three license.created are all there is.
    await w.until(async () => (await logOf()).length === 3 && (await logOf()).every((d) => d.attempts.length === 1), 'the first attempts');
    // Move the clock to each next retry for two days; then the receiver is back.
    for (;;) {
      const next = Math.min(...(await logOf()).filter((d) => d.nextAttemptAt).map((d) => Date.parse(d.nextAttemptAt)));
      if (next - start > 2 * 86_400_000) {
        up = true;
      }
      const before = w.receiver.received.length;
      w.h.clock.advance(Math.max(0, next - w.h.clock.now()));
      w.notifications.wake();
      await w.until(() => w.receiver.received.length > before, 'the next attempt');
      await w.until(async () => (await logOf()).every((d) => d.status !== 'pending' || Date.parse(d.nextAttemptAt) > w.h.clock.now()), 'the attempts recorded');
      if (up && (await logOf()).every((d) => d.status === 'delivered')) break;
    }
    const log = await logOf();
    for (const d of log) {
      const times = d.attempts.map((a: { at: string }) => Date.parse(a.at));
      const gaps = times.slice(1).map((t: number, i: number) => t - times[i]);
      gaps.forEach((gap: number, i: number) => {
        const expected = RETRY_DELAYS_MS[Math.min(i, RETRY_DELAYS_MS.length - 1)]!;
        expect(Math.abs(gap - expected)).toBeLessThanOrEqual(expected * 0.1 + 1000);
      });
      expect(d.attempts.at(-1).status).toBe(204);
      expect(d.attempts.slice(0, -1).every((a: { status: number }) => a.status === 503)).toBe(true);
      expect(times.at(-1) - times[0]).toBeGreaterThan(2 * 86_400_000 - 36_000_000);
    }
    expect(new Set(w.receiver.received.filter((r) => r.verifiedWith.length === 1).map((r) => r.headers['webhook-id'])).size).toBe(3);
    expect(await w.get(`/v1/webhook-endpoints/${endpoint.id}`)).toMatchObject({ enabled: true, disabledReason: null });
  });

  it('410 Gone disables the endpoint at once and e-mails the owner; nothing more is sent until it is enabled again', async () => {
    const w = await world(store);
    const endpoint = await w.endpoint();
    let gone = true;
    w.receiver.handle = (_request, response) => void response.writeHead(gone ? 410 : 204).end();
    const plan = await productAndPlan(w);
    await w.post('/v1/licenses', { plan, email: 'a@example.com' }, key(w));
    await w.until(async () => (await w.get(`/v1/webhook-endpoints/${endpoint.id}`)).enabled === false, 'the endpoint disabled');
    expect(await w.get(`/v1/webhook-endpoints/${endpoint.id}`)).toMatchObject({ enabled: false, disabledReason: 'gone' });
    const [mail] = await w.smtp.waitFor(1);
    expect(mail!.envelope.to).toEqual([(await w.get('/v1/account')).ownerEmail]);
    expect(mail!.mail.text).toContain('410 Gone');
    expect(mail!.mail.text).toContain(w.receiver.url('/hooks/svc'));
    await w.post('/v1/licenses', { plan, email: 'b@example.com' }, key(w));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(w.receiver.received).toHaveLength(1);
    gone = false;
    const enabled = await w.h.fetch(`/v1/webhook-endpoints/${endpoint.id}`, { method: 'PATCH', headers: { ...w.owner, 'content-type': 'application/json' }, body: '{"enabled":true}' });
    expect(enabled.status).toBe(200);
    await w.post('/v1/licenses', { plan, email: 'c@example.com' }, key(w));
    await w.until(() => w.receiver.received.length === 2, 'the next license');
    expect((w.receiver.received[1]!.payload as any).data.customer.email).toBe('c@example.com');
  });

  it('an endpoint that accepts nothing for 3 days is disabled and its owner e-mailed', async () => {
    const w = await world(store);
    const endpoint = await w.endpoint();
    w.receiver.handle = (_request, response) => void response.writeHead(500).end();
    const plan = await productAndPlan(w);
    await w.post('/v1/licenses', { plan, email: 'a@example.com' }, key(w));
    const logOf = async () => (await w.get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`)).data[0];
    for (let n = 1; ; n++) {
      await w.until(async () => (await logOf()).attempts.length === n, `attempt ${n}`);
      const d = await logOf();
      if (d.status !== 'pending') break;
      w.h.clock.advance(Date.parse(d.nextAttemptAt) - w.h.clock.now());
      w.notifications.wake();
    }
    const d = await logOf();
    expect(d).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(d.attempts).toHaveLength(13);
    expect(Date.parse(d.attempts.at(-1).at) - Date.parse(d.attempts[0].at)).toBe(72 * 3600_000);
    expect(await w.get(`/v1/webhook-endpoints/${endpoint.id}`)).toMatchObject({ enabled: false, disabledReason: 'failing' });
    const [mail] = await w.smtp.waitFor(1);
    expect(mail!.mail.text).toContain('accepted no notification for 3 days');
  });
});
