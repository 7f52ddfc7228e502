import { expect, it } from 'vitest';
import { defineRoute } from '../../src/index.js';
import { createProduct, fingerprint, licensed } from '../support/fixtures.js';
import { createHarness, describeEverySetup } from '../support/harness.js';

const boom = defineRoute({
  method: 'GET', path: '/v1/boom', api: 'public', tag: 'Test', summary: 'Always fails',
  handler: () => {
    throw new Error('database password is hunter2 at /srv/secret/path');
  },
});

describeEverySetup('errors, authentication, health and the request log over HTTP', (setup) => {
  it('answers 401 unauthorized for a missing, malformed or unknown API key', async () => {
    const h = await createHarness(setup);
    const cases: (string | null)[] = [null, 'not-a-key', `svc_sk_${'a'.repeat(32)}`, h.apiKey.slice(0, -1)];
    for (const key of cases) {
      const res = await h.api('GET', '/products', undefined, { key });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
    }
    const basic = await h.fetch('/v1/products', { headers: { authorization: `Basic ${h.apiKey}` } });
    expect(basic.status).toBe(401);
  });

  it('answers 404 not_found for unknown routes and unknown IDs', async () => {
    const h = await createHarness(setup);
    for (const [method, path] of [['GET', '/v1/nothing'], ['GET', '/nothing'], ['PUT', '/v1/nothing']] as const) {
      const res = await h.fetch(path, { method, headers: { authorization: `Bearer ${h.apiKey}` } });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect((await res.json()).error.code).toBe('not_found');
    }
    const res = await h.api('GET', '/licenses/lic_00000000000000000000000000');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('refuses malformed JSON, a non-JSON body and an oversized body with invalid_request, creating nothing', async () => {
    const h = await createHarness(setup, { bodyLimit: 1024 });
    const auth = { authorization: `Bearer ${h.apiKey}` };
    const malformed = await h.fetch('/v1/products', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"name": "x",' });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.code).toBe('invalid_request');
    const form = await h.fetch('/v1/products', { method: 'POST', headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=x&keyPrefix=X' });
    expect(form.status).toBe(400);
    const big = await h.fetch('/v1/products', {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'x'.repeat(2000), keyPrefix: 'BIG' }),
    });
    expect(big.status).toBe(413);
    expect((await big.json()).error.code).toBe('invalid_request');
    const arrayBody = await h.api('POST', '/products', [1, 2]);
    expect(arrayBody.status).toBe(400);
    expect((await h.api('GET', '/products')).body.data).toEqual([]);
  });

  it('answers 500 internal_error without leaking internals, and logs the cause for the operator', async () => {
    const h = await createHarness(setup, { routes: [boom] });
    const res = await h.fetch('/v1/boom');
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: { code: 'internal_error', message: expect.any(String) } });
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('/srv');
    const line = h.logLines.find((l) => l.path === '/v1/boom');
    expect(line).toMatchObject({ status: 500, error: 'internal_error', cause: expect.stringContaining('hunter2') });
  });

  it('answers GET /health with 200 { status: ok }', async () => {
    const h = await createHarness(setup);
    const res = await h.fetch('/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('answers GET /ready with 200 { status: ready } while the store answers, without authentication', async () => {
    const h = await createHarness(setup);
    const res = await h.fetch('/ready');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready' });
  });

  it('answers GET /ready with 503 not_ready within about 2 s when the readiness check hangs or fails', async () => {
    const hanging = await createHarness(setup, { readiness: () => new Promise<string | null>(() => undefined) });
    const started = performance.now();
    const res = await hanging.fetch('/ready');
    expect(performance.now() - started).toBeLessThan(3000);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: { code: 'not_ready', message: expect.stringContaining('did not finish') } });
    const down = await createHarness(setup, { readiness: async () => 'the database is unreachable' });
    const refused = await down.fetch('/ready');
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as any).error.message).toContain('the database is unreachable');
  });

  it('logs one JSON line per request with method, path, status and duration, never a key or secret', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h);
    await h.api('GET', `/licenses?key=${encodeURIComponent(license.key)}&email=buyer@example.com`);
    await h.client('activate', { product: product.id, key: license.key, fingerprint: fingerprint(product.id, 1) });
    await h.api('POST', '/integrations', { provider: 'provider_b', product: product.id, webhookSecret: 'whsec_log_secret' });
    await h.api('GET', '/products', undefined, { key: null });
    await createProduct(h, { keyPrefix: 'LOG' });
    const all = JSON.stringify(h.logLines);
    for (const secret of [license.key, h.apiKey, 'whsec_log_secret', 'buyer@example.com', 'Bearer']) expect(all).not.toContain(secret);
    const byPath = (path: string) => h.logLines.filter((l) => l.path === path);
    expect(byPath('/v1/licenses').find((l) => l.method === 'GET')).toMatchObject({ status: 200, account: h.accountId, durationMs: expect.any(Number) });
    expect(byPath('/v1/licenses/activate')[0]).toMatchObject({ method: 'POST', status: 200 });
    expect(byPath('/v1/products').map((l) => l.status)).toContain(401);
    expect(h.logLines.length).toBeGreaterThanOrEqual(7);
  });
});
