import { expect, it } from 'vitest';
import { fingerprint, licensed } from '../support/fixtures.js';
import { createApp, createMemoryRateLimitStore } from '../../src/index.js';
import { createHarness, describeEverySetup, PUBLIC_BASE_URL } from '../support/harness.js';

describeEverySetup('rate limits over HTTP', (setup) => {
  it('limits the vendor API per account with 429 rate_limited, Retry-After and X-RateLimit-* on every response', async () => {
    const h = await createHarness(setup, { limits: { vendorPerAccount: 3 } });
    const other = await h.newAccount();
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await h.api('GET', '/products'));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0', '0']);
    for (const a of answers) expect(a.headers.get('x-ratelimit-limit')).toBe('3');
    const reset = Number(answers[0]!.headers.get('x-ratelimit-reset'));
    expect(reset).toBe(Math.ceil((h.clock.now() + 3_600_000) / 1000));
    expect(answers[3]!.body.error.code).toBe('rate_limited');
    expect(answers[3]!.headers.get('retry-after')).toBe('3600');

    const refusedCreate = await h.api('POST', '/products', { name: 'Late', keyPrefix: 'LATE' });
    expect(refusedCreate.status).toBe(429);
    expect((await h.api('GET', '/products', undefined, { key: other.apiKey })).status).toBe(200);

    h.clock.advance(3_600_000);
    const after = await h.api('GET', '/products');
    expect(after.status).toBe(200);
    expect(after.body.data).toEqual([]);
  });

  it('limits the client API per license key and IP, and per IP, hashing the key', async () => {
    const h = await createHarness(setup, { limits: { clientPerKeyAndIp: 2, clientPerIp: 5 }, trustProxy: true });
    const { product, license } = await licensed(h);
    const body = { product: product.id, key: license.key, fingerprint: fingerprint(product.id, 1) };
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    const a1 = await h.client('activate', body, from('10.0.0.1'));
    const a2 = await h.client('validate', { ...body, key: license.key.toLowerCase() }, from('10.0.0.1'));
    const a3 = await h.client('validate', body, from('10.0.0.1'));
    expect([a1.status, a2.status, a3.status]).toEqual([200, 200, 429]);
    expect(a1.headers.get('x-ratelimit-limit')).toBe('2');
    expect(a3.body.error.code).toBe('rate_limited');
    expect(a3.headers.get('retry-after')).toBe('3600');
    expect(a3.headers.get('access-control-allow-origin')).toBe('*');
    // Same key, another IP: its own budget.
    expect((await h.client('validate', body, from('10.0.0.2'))).status).toBe(200);

    // Per IP: 5 calls whatever the key.
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await h.client('validate', { ...body, key: `ACME-${i}AAAA-BBBBB-CCCCC-DDDDD` }, from('10.0.0.1'))).status);
    expect(statuses.slice(0, 2)).not.toContain(429);
    expect(statuses[2]).toBe(429);

    const lines = JSON.stringify(h.logLines);
    expect(lines).not.toContain(license.key);
  });

  it('a validate over its limit writes nothing: its activation keeps the lastSeenAt of the last admitted one', async () => {
    // validate reads the license while the call is counted; the count must still decide first.
    const h = await createHarness(setup, { limits: { clientPerKeyAndIp: 2 } });
    const { product, license } = await licensed(h);
    const body = { product: product.id, key: license.key, fingerprint: fingerprint(product.id, 1) };
    const lastSeen = async () => ((await h.api('GET', `/licenses/${license.id}`)).body as { activations: { lastSeenAt: string }[] }).activations[0]!.lastSeenAt;
    expect((await h.client('activate', body)).status).toBe(200);
    h.clock.advance(120_000); // past the resolution: this validate records lastSeenAt
    expect((await h.client('validate', body)).status).toBe(200);
    const recorded = await lastSeen();
    expect(Date.parse(recorded)).toBe(Math.floor(h.clock.now() / 1000) * 1000);
    h.clock.advance(120_000); // and so would this one, were it admitted
    const refused = await h.client('validate', body);
    expect([refused.status, refused.body.error.code]).toEqual([429, 'rate_limited']);
    expect(refused.body.certificate).toBeUndefined();
    expect(await lastSeen()).toBe(recorded);
  });
});

it('shares budgets between app instances that share a RateLimitStore', async () => {
  const h = await createHarness('in-process');
  const store = createMemoryRateLimitStore();
  const make = () => createApp({ engine: h.engine, publicBaseUrl: PUBLIC_BASE_URL, log: false, clock: h.clock, rateLimitStore: store, limits: { vendorPerAccount: 2 } });
  const [a, b] = [make(), make()];
  const get = (app: typeof a) => app.fetch(new Request('http://localhost/v1/products', { headers: { authorization: `Bearer ${h.apiKey}` } }));
  expect((await get(a)).status).toBe(200);
  expect((await get(b)).status).toBe(200);
  const third = await get(a);
  expect(third.status).toBe(429);
  expect(third.headers.get('x-ratelimit-remaining')).toBe('0');
});
