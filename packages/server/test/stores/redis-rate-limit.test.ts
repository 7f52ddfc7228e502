import { randomBytes } from 'node:crypto';
import { connect, createServer } from 'node:net';
import type { Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, test } from 'vitest';
import { createApp, createRedisRateLimitStore } from '../../src/index.js';
import type { RedisRateLimitStore } from '../../src/index.js';
import { createHarness, PUBLIC_BASE_URL } from '../support/harness.js';
import { fingerprint, licensed } from '../support/fixtures.js';
import { deleteRedisKeys, redisTestUrl } from '../support/redis.js';
import { createTcpProxy } from '../support/tcp-proxy.js';

// Two stores on one Redis stand for two server instances; a prefix of this run's own keeps
// parallel runs apart, and every key under it is deleted at the end.
const base = `svc-test:${randomBytes(6).toString('hex')}`;
const opened: RedisRateLimitStore[] = [];
const open = (): RedisRateLimitStore => {
  const store = createRedisRateLimitStore({ url: redisTestUrl, base });
  opened.push(store);
  return store;
};
const admin = new Redis(redisTestUrl);
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await deleteRedisKeys(admin, base);
  await admin.quit();
});

const HOUR = 3_600_000;

describe('redis rate-limit store', () => {
  test('counts calls in a window that starts at the first call, under the prefix, and each key expires with its window', async () => {
    const limits = open();
    await limits.ready();
    const t0 = 1_900_000_000_000;
    const first = await limits.hit('ip:1', HOUR, t0);
    expect(first.count).toBe(1);
    // Redis keeps the time left; resetAt is `now` plus that, so within the window from t0.
    expect(first.resetAt).toBeGreaterThan(t0 + HOUR - 60_000);
    expect(first.resetAt).toBeLessThanOrEqual(t0 + HOUR);
    expect((await limits.hit('ip:1', HOUR, t0 + 1000)).count).toBe(2);
    expect((await limits.hit('ip:2', HOUR, t0 + 1000)).count).toBe(1);
    expect(await admin.get(`${base}:ip:1`)).toBe('2');
    const ttl = await admin.pttl(`${base}:ip:1`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(HOUR);
  });

  test('a new window starts once Redis has expired the old one', async () => {
    const limits = open();
    expect((await limits.hit('short', 50, Date.now())).count).toBe(1);
    expect((await limits.hit('short', 50, Date.now())).count).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect((await limits.hit('short', 50, Date.now())).count).toBe(1);
  });

  test('hitMany counts every key in one call, results in the order asked', async () => {
    const limits = open();
    const now = Date.now();
    await limits.hit('many:b', HOUR, now);
    const [a, b] = await limits.hitMany(['many:a', 'many:b'], HOUR, now);
    expect([a!.count, b!.count]).toEqual([1, 2]);
    await expect(limits.hitMany(['many:a', 'many:a'], HOUR, now)).rejects.toThrow(/distinct/);
  });

  test('instances share one budget: 40 concurrent calls from two instances each get their own count', async () => {
    const [a, b] = [open(), open()];
    const now = Date.now();
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).hitMany(['shared:ip', 'shared:key'], HOUR, now)));
    for (const column of [0, 1]) {
      expect(results.map((r) => r[column]!.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    }
    expect((await a.hit('shared:key', HOUR, now)).count).toBe(41);
  });

  test('calls made at the same moment go in one script call, and each still gets its own count', async () => {
    // A proxy in front of Redis that counts the script calls the client sends (EVALSHA, or EVAL
    // when Redis does not know the script yet).
    const { hostname, port } = new URL(redisTestUrl);
    let sent = '';
    const sockets = new Set<Socket>();
    const proxy = createServer((client) => {
      const upstream = connect(Number(port || 6379), hostname);
      sockets.add(client).add(upstream);
      client.on('data', (chunk: Buffer) => (sent += chunk.toString('latin1')));
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const limits = createRedisRateLimitStore({ url: `redis://127.0.0.1:${(proxy.address() as { port: number }).port}`, base });
    opened.push(limits);
    try {
      await limits.ready();
      sent = '';
      const now = Date.now();
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => limits.hitMany(['together:ip', `together:key:${i}`], HOUR, now)));
      const scriptCalls = (sent.match(/\$7\r\nevalsha\r\n/gi) ?? []).length + (sent.match(/\$4\r\neval\r\n/gi) ?? []).length;
      expect(scriptCalls).toBeGreaterThanOrEqual(1);
      expect(scriptCalls).toBeLessThanOrEqual(2); // EVALSHA, then EVAL if the script was not loaded yet
      expect(results.map((r) => r[0]!.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(results.map((r) => r[1]!.count)).toEqual(Array(20).fill(1));
      for (const [ip] of results) expect(ip!.resetAt).toBeGreaterThan(now + HOUR - 60_000);
    } finally {
      await limits.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  test('two apps on one Redis share the client API budget: 429 rate_limited with Retry-After', async () => {
    const h = await createHarness('in-process');
    const { product, license } = await licensed(h);
    const [storeA, storeB] = [open(), open()];
    const make = (rateLimitStore: RedisRateLimitStore) =>
      createApp({ engine: h.engine, publicBaseUrl: PUBLIC_BASE_URL, log: false, rateLimitStore, limits: { clientPerKeyAndIp: 3 } });
    const apps = [make(storeA), make(storeB)];
    const body = JSON.stringify({ product: product.id, key: license.key, fingerprint: fingerprint(product.id, 1) });
    const call = (i: number, path: string) =>
      apps[i % 2]!.fetch(new Request(`http://localhost/v1/licenses/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
    const statuses = [(await call(0, 'activate')).status, (await call(1, 'validate')).status, (await call(0, 'validate')).status];
    expect(statuses).toEqual([200, 200, 200]);
    const refused = await call(1, 'validate');
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('3');
  });

  test('an unreachable Redis fails ready() and a hit with an error, and reports it once', async () => {
    const errors: Error[] = [];
    const limits = createRedisRateLimitStore({ url: 'redis://127.0.0.1:1', base, onError: (error) => errors.push(error) });
    opened.push(limits);
    await expect(limits.ready()).rejects.toThrow();
    await expect(limits.hit('down', HOUR, Date.now())).rejects.toThrow();
    expect(errors).toHaveLength(1);
  });

  test('while Redis is down a hit fails instead of hanging; the client reconnects by itself and counting goes on', async () => {
    const { hostname, port } = new URL(redisTestUrl);
    const proxy = await createTcpProxy({ host: hostname, port: Number(port || 6379) });
    const errors: Error[] = [];
    const limits = createRedisRateLimitStore({ url: `redis://127.0.0.1:${proxy.port}`, base, onError: (error) => errors.push(error) });
    opened.push(limits);
    try {
      await limits.ready();
      expect((await limits.hit('outage', HOUR, Date.now())).count).toBe(1);
      await proxy.stop();
      await expect(limits.hit('outage', HOUR, Date.now())).rejects.toThrow();
      await proxy.start();
      let count = 0;
      for (let attempt = 0; attempt < 100 && count === 0; attempt++) {
        count = await limits.hit('outage', HOUR, Date.now()).then((r) => r.count, () => 0);
        if (count === 0) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(count).toBe(2);
      expect(errors).toHaveLength(1); // one report for the outage, not one per reconnect attempt
    } finally {
      await proxy.stop();
    }
  });
});
