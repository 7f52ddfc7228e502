import { expect, it } from 'vitest';
import { createPlan, createProduct, licensed } from '../support/fixtures.js';
import { createHarness, describeEverySetup, type Answer, type Harness } from '../support/harness.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** The paged lists of the vendor API an API key reads (the spec's eight, and members), as paths for one product. */
const lists = (productId: string) => [
  '/products', `/products/${productId}/keys`, `/products/${productId}/plans`, '/licenses', '/customers', '/integrations', '/api-keys', '/events', '/members',
];

const withCursor = (path: string, cursor: string) => `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`;

function expectInvalid(res: Answer, what: string): void {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(400);
  expect(res.body).toEqual({ error: { code: 'invalid_request', message: expect.any(String) } });
}

/** 51 licenses (so 51 customers and more than 50 events) and 51 products: every list of interest has a second page. */
async function pagedAccount(h: Harness) {
  const product = await createProduct(h);
  const plan = await createPlan(h, product.id, { kind: 'perpetual' });
  for (let i = 0; i < 51; i++) {
    const res = await h.api('POST', '/licenses', { plan: plan.id, email: `buyer-${i}@buyers.test` });
    expect(res.status).toBe(201);
  }
  for (let i = 0; i < 50; i++) await createProduct(h, { keyPrefix: `P${i}` });
  return { product };
}

describeEverySetup('bad input and limits over HTTP', (setup) => {
  it('refuses a garbage, edited or foreign cursor on every list with 400 invalid_request, and follows its own', async () => {
    const h = await createHarness(setup);
    const { product } = await pagedAccount(h);
    const cursorOf = async (path: string) => {
      const res = await h.api('GET', path);
      expect(res.status).toBe(200);
      expect(typeof res.body.nextCursor, path).toBe('string');
      return res.body.nextCursor as string;
    };
    const products = await cursorOf('/products');
    const licenses = await cursorOf('/licenses');

    // Garbage (today: page 1), a base64url of some ID (today: an empty page), another list's cursor.
    for (const path of lists(product.id)) {
      for (const cursor of ['garbage', 'MA', Buffer.from('lic_zzzzzzzzzz').toString('base64url')]) {
        expectInvalid(await h.api('GET', withCursor(path, cursor)), `${path} with ${cursor}`);
      }
      const foreign = path === '/products' ? licenses : products;
      expectInvalid(await h.api('GET', withCursor(path, foreign)), `${path} with another list's cursor`);
    }

    // One character changed: refused, not decoded.
    const last = products.at(-2) === 'A' ? 'B' : 'A';
    expectInvalid(await h.api('GET', withCursor('/products', `${products.slice(0, -2)}${last}${products.at(-1)}`)), 'edited cursor');
    // The same list with other filters, or of another account.
    expectInvalid(await h.api('GET', withCursor('/licenses?status=perpetual', licenses)), 'cursor of another filter');
    const other = await h.newAccount('unlimited');
    expectInvalid(await h.api('GET', withCursor('/products', products), undefined, { key: other.apiKey }), 'cursor of another account');

    // Its own cursor still pages on.
    const next = await h.api('GET', withCursor('/products', products));
    expect(next.status).toBe(200);
    expect(next.body.data).toHaveLength(1);
    expect(next.body.data[0].id).toBe(product.id);
    expect(next.body.nextCursor).toBeNull();
    const lastLicenses = await h.api('GET', withCursor('/licenses', licenses));
    expect(lastLicenses.body.data.map((l: any) => l.customer.email)).toEqual(['buyer-0@buyers.test']);
  });

  it('refuses a JSON array where an object is expected on every route with a body, writing nothing', async () => {
    const h = await createHarness(setup);
    const { product } = await licensed(h);
    const before = (await h.api('GET', '/account')).body;
    const doc = await (await h.fetch('/v1/openapi.json')).json();
    const owner = await h.signIn();
    let routes = 0;
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        if (!op.requestBody) continue;
        routes++;
        const url = path.replace(/\{[^}]+\}/g, product.id);
        for (const body of ['[]', '["pro","perp"]']) {
          const send = (auth: Record<string, string>) =>
            h.fetch(url, { method: method.toUpperCase(), headers: { ...auth, 'content-type': 'application/json' }, body });
          let res = await send({ authorization: `Bearer ${h.apiKey}` });
          let answer = await res.json();
          // An owner-only route refuses an API key first: ask again as the signed-in owner.
          if (answer.error?.code === 'owner_session_required') {
            res = await send(owner.headers);
            answer = await res.json();
          }
          expect(res.status, `${method} ${path} with ${body}`).toBe(400);
          expect(answer.error.code, `${method} ${path} with ${body}`).toBe('invalid_request');
        }
      }
    }
    expect(routes).toBeGreaterThanOrEqual(12);
    expect((await h.api('GET', '/account')).body).toEqual(before);

    // Nested objects too: a price map or a portal setting given as an array.
    const created = await h.api('POST', '/integrations', { provider: 'provider_b', product: product.id, priceMap: ['pro', 'perp'] });
    expectInvalid(created, 'priceMap array on create');
    expect(created.body.error.message).toContain('priceMap');
    const integration = await h.api('POST', '/integrations', { provider: 'provider_b', product: product.id, priceMap: { v1: 'pro' } });
    expect(integration.status).toBe(201);
    expectInvalid(await h.api('PATCH', `/integrations/${integration.body.id}`, { priceMap: ['pro'] }), 'priceMap array on update');
    expectInvalid(await h.api('PATCH', '/account', { customerPortal: ['custom'] }), 'customerPortal array');
    expect((await h.api('GET', `/integrations/${integration.body.id}`)).body.priceMap).toEqual({ v1: 'pro' });
    expect((await h.api('GET', '/integrations')).body.data).toHaveLength(1);
  });

  it('takes only real calendar instants as timestamps, and no paidUntil whose validUntil leaves the four-digit years', async () => {
    const h = await createHarness(setup);
    const { plan, license } = await licensed(h); // graceDays 3
    const create = (paidUntil: string) => h.api('POST', '/licenses', { plan: plan.id, email: 'dates@buyers.test', paidUntil });
    for (const bad of ['2024-02-30T00:00:00Z', '2023-02-29T00:00:00Z', '2024-01-01T24:00:00Z', '2024-01-01T12:00:60Z', '2024-13-01T00:00:00Z', '2024-04-31T00:00:00Z', '9999-12-30T00:00:00Z']) {
      expectInvalid(await create(bad), `create with ${bad}`);
      expectInvalid(await h.api('PATCH', `/licenses/${license.id}`, { paidUntil: bad }), `update with ${bad}`);
    }
    expect((await h.api('GET', '/licenses?email=dates@buyers.test')).body.data).toEqual([]);
    expect((await h.api('GET', `/licenses/${license.id}`)).body.paidUntil).not.toMatch(/^(2023|2024|9999)/);

    const leap = await create('2024-02-29T23:59:59Z');
    expect(leap.status).toBe(201);
    expect(leap.body).toMatchObject({ paidUntil: '2024-02-29T23:59:59Z', validUntil: '2024-03-03T23:59:59Z' });
    const latest = await h.api('PATCH', `/licenses/${license.id}`, { paidUntil: '9999-12-28T23:59:59Z' });
    expect(latest.status).toBe(200);
    expect(latest.body.validUntil).toBe('9999-12-31T23:59:59Z');
  });

  it('takes the bearer scheme in any letter case, and still refuses another scheme', async () => {
    const h = await createHarness(setup);
    for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
      const res = await h.fetch('/v1/products', { headers: { authorization: `${scheme} ${h.apiKey}` } });
      expect(res.status, scheme).toBe(200);
    }
    expect((await h.fetch('/v1/products', { headers: { authorization: `Token ${h.apiKey}` } })).status).toBe(401);
    expect((await h.fetch('/v1/products', { headers: { authorization: `bearer ${h.apiKey.toUpperCase()}` } })).status).toBe(401);
  });

  it('answers a wrong method on a known path with 405, an Allow header and the error body; an unknown path stays 404', async () => {
    const h = await createHarness(setup);
    const auth = { authorization: `Bearer ${h.apiKey}` };
    const cases: Array<[string, string, string]> = [
      ['PUT', '/v1/products', 'GET, HEAD, POST'],
      ['DELETE', '/v1/products', 'GET, HEAD, POST'],
      ['POST', '/v1/licenses/lic_x', 'GET, HEAD, PATCH'],
      ['GET', '/v1/licenses/activate', 'POST, OPTIONS'],
      ['POST', '/health', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await h.fetch(path, { method, headers: auth });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
      expect(res.headers.get('content-type')).toBe(JSON_TYPE);
      expect(await res.json()).toEqual({ error: { code: 'invalid_request', message: expect.stringContaining(method) } });
    }
    const unknown = await h.fetch('/v1/nothing', { method: 'PUT', headers: auth });
    expect(unknown.status).toBe(404);
    expect((await h.api('GET', '/products')).body.data).toEqual([]);
  });

  it('answers success and error alike with Content-Type application/json; charset=utf-8', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h);
    const answers: Array<[string, Response]> = [
      ['list', await h.fetch('/v1/products', { headers: { authorization: `Bearer ${h.apiKey}` } })],
      ['401', await h.fetch('/v1/products')],
      ['404', await h.fetch('/v1/nothing')],
      ['health', await h.fetch('/health')],
      ['openapi', await h.fetch('/v1/openapi.json')],
      ['activate', await h.fetch('/v1/licenses/activate', {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ product: product.id, key: license.key, fingerprint: 'a'.repeat(64) }),
      })],
      ['400', await h.fetch('/v1/licenses/activate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })],
    ];
    for (const [what, res] of answers) expect(res.headers.get('content-type'), what).toBe(JSON_TYPE);
    expect(answers.map(([, res]) => res.status)).toEqual([200, 401, 404, 200, 200, 200, 400]);
  });
});
