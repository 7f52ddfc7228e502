import { describe, expect, it } from 'vitest';
import { createMemoryRateLimitStore } from '../../src/index.js';
import { fingerprint, licensed } from '../support/fixtures.js';
import { createHarness, describeEverySetup } from '../support/harness.js';

describe('the in-memory rate limiter', () => {
  it('opens no window for a call that an existing window already refuses: refused calls with ever new keys allocate nothing', async () => {
    const store = createMemoryRateLimitStore();
    const h = await createHarness('in-process', { rateLimitStore: store, limits: { clientPerIp: 5, clientPerKeyAndIp: 30 } });
    const product = 'prd_00000000000000000000000000';
    const statuses = new Map<number, number>();
    for (let i = 0; i < 1_000; i++) {
      const res = await h.client('validate', { product, key: `ACME-${String(i).padStart(5, '0')}-AAAAA-BBBBB-CCCCC`, fingerprint: fingerprint(product, 1) });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
    // Five calls pass the limiter (and are then refused as bad keys), the rest are 429.
    expect(Object.fromEntries(statuses)).toEqual({ 400: 5, 429: 995 });
    // The IP's window and the five allowed keys' windows: nothing for the 995 refused calls.
    expect(store.size).toBe(6);
  });

  it('holds at most maxWindows windows, evicting the oldest first', async () => {
    const store = createMemoryRateLimitStore({ maxWindows: 100 });
    const now = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 1_000; i++) await store.hit(`k${i}`, 3_600_000, now + i);
    expect(store.size).toBe(100);
    // k999 is kept (its second call counts 2); k0 was evicted (it starts a new window at 1).
    expect((await store.hit('k999', 3_600_000, now + 1_000)).count).toBe(2);
    expect((await store.hit('k0', 3_600_000, now + 1_001)).count).toBe(1);
    expect(store.size).toBe(100);
    expect(() => createMemoryRateLimitStore({ maxWindows: 0 })).toThrow(/maxWindows/);
  });

  it('evicts in opening order when windows reopen between evictions', async () => {
    const store = createMemoryRateLimitStore({ maxWindows: 3 });
    const now = Date.UTC(2026, 0, 1);
    await store.hit('a', 1_000, now);
    await store.hit('b', 60_000, now);
    await store.hit('c', 60_000, now);
    await store.hit('a', 1_000, now + 1_000); // a's window ended: it reopens, the newest now
    await store.hit('d', 60_000, now + 1_001); // evicts b, the oldest
    const counts = async (...keys: string[]) => {
      const out = [];
      for (const key of keys) out.push((await store.hit(key, 60_000, now + 1_002)).count);
      return out;
    };
    expect(await counts('c', 'a', 'd')).toEqual([2, 2, 2]);
    // b opens anew and evicts c; c opens anew and evicts a; a opens anew and evicts d.
    expect(await counts('b', 'c', 'a')).toEqual([1, 1, 1]);
    expect(await counts('b', 'c', 'a')).toEqual([2, 2, 2]);
    expect(store.size).toBe(3);
  });
});

describeEverySetup('client addresses behind a proxy', (setup) => {
  it('ignores X-Forwarded-For unless trustProxy is on, then counts by its last entry', async () => {
    const limits = { clientPerIp: 2, clientPerKeyAndIp: 100 };
    const call = async (h: Awaited<ReturnType<typeof createHarness>>, productId: string, key: string, forwarded: string) =>
      (await h.client('validate', { product: productId, key, fingerprint: fingerprint(productId, 1) }, { 'x-forwarded-for': forwarded })).status;

    const direct = await createHarness(setup, { limits });
    const a = await licensed(direct);
    // Off (the default): every caller is the TCP peer, whatever the header says; one bucket of 2.
    expect([
      await call(direct, a.product.id, a.license.key, '203.0.113.1'),
      await call(direct, a.product.id, a.license.key, '203.0.113.2'),
      await call(direct, a.product.id, a.license.key, '203.0.113.3'),
    ]).toEqual([404, 404, 429]);

    const proxied = await createHarness(setup, { limits, trustProxy: true });
    const b = await licensed(proxied);
    const statuses = [];
    for (const client of ['203.0.113.1', '203.0.113.2']) {
      for (let i = 0; i < 2; i++) statuses.push(await call(proxied, b.product.id, b.license.key, client));
    }
    expect(statuses).toEqual([404, 404, 404, 404]);
    // A third call of one client is refused; a client-written first entry does not make it another client.
    expect(await call(proxied, b.product.id, b.license.key, '203.0.113.1')).toBe(429);
    expect(await call(proxied, b.product.id, b.license.key, '198.51.100.9, 203.0.113.1')).toBe(429);
    expect(await call(proxied, b.product.id, b.license.key, '203.0.113.1, 203.0.113.4')).toBe(404);
  });
});
