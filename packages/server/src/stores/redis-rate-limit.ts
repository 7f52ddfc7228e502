import type { Cluster, Redis } from 'ioredis';
import type { RedisOptions } from 'unstorage/drivers/redis';
import type { RateLimitStore } from '../http/rate-limit.js';

/** Options of {@link createRedisRateLimitStore}. */
export interface RedisRateLimitStoreOptions {
  /** `redis://[user:password@]host:6379[/db]`, or `rediss://` for TLS. */
  url?: string;
  /** Prefix of every counter key (`<base>:<bucket>`). Default `svc-licensing:rate-limit`. */
  base?: string;
  /** Any other option of unstorage's redis driver (and so of ioredis): `cluster`, `tls`, `password`, ... */
  driver?: Omit<RedisOptions, 'url' | 'base'>;
  /** Called once when the connection fails or is lost (not on every reconnect attempt). */
  onError?: (error: Error) => void;
}

/** A `RateLimitStore` on Redis, with start-up check and shutdown. */
export interface RedisRateLimitStore extends RateLimitStore {
  hitMany(keys: readonly string[], windowMs: number, now: number): Promise<Array<{ count: number; resetAt: number }>>;
  /** Resolves once Redis answers a PING; rejects (fast) when it cannot be reached. */
  ready(): Promise<void>;
  /** Waits for pending replies, then closes the connection. */
  close(): Promise<void>;
}

/**
 * One round trip and atomic: for each key, INCR, and when the counter has no expiry yet (the
 * window's first call) PEXPIRE it to the window length; return the count and the time left.
 * No `PEXPIRE ... NX`, so Redis 6 works too.
 */
const HIT_SCRIPT = `
local out = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then
    redis.call('PEXPIRE', key, ARGV[1])
    ttl = tonumber(ARGV[1])
  end
  out[2 * i - 1] = count
  out[2 * i] = ttl
end
return out`;

type HitCommand = (numberOfKeys: number, ...args: Array<string | number>) => Promise<number[]>;

/**
 * Rate-limit windows in Redis, shared by every server process that uses the same Redis and
 * prefix. Built on unstorage's redis driver; the counting uses the driver's ioredis client
 * directly: one Lua script per call (INCR + PEXPIRE on the window's first call + PTTL), so a
 * hit is one atomic round trip, and the client API's two buckets go in the same script.
 * Windows end by Redis' own expiry (keys never outlive their window); `now` only turns the time
 * left into `resetAt`. ioredis and unstorage load on first use, not with the package.
 *
 * @example
 * ```ts
 * const rateLimitStore = createRedisRateLimitStore({ url: 'redis://127.0.0.1:6379' });
 * await rateLimitStore.ready(); // fail at start-up if Redis is unreachable
 * const app = createApp({ engine, publicBaseUrl, rateLimitStore });
 * // on shutdown: await rateLimitStore.close();
 * ```
 */
export function createRedisRateLimitStore(options: RedisRateLimitStoreOptions = {}): RedisRateLimitStore {
  const base = (options.base ?? 'svc-licensing:rate-limit').replace(/:$/, '');
  let failed = false;
  const connecting = import('unstorage/drivers/redis').then(({ default: redisDriver }) => {
    const driver = redisDriver({
      // Hits of requests handled in the same event-loop turn go out in one write.
      enableAutoPipelining: true,
      // Fail a command quickly while Redis is away instead of queueing it for long.
      maxRetriesPerRequest: 1,
      commandTimeout: 2000,
      connectTimeout: 5000,
      ...options.driver,
      ...(options.url === undefined ? {} : { url: options.url }),
    });
    const client = driver.getInstance!() as Redis | Cluster;
    client.on('error', (error: Error) => {
      if (failed) return;
      failed = true;
      options.onError?.(error);
    });
    client.on('ready', () => {
      failed = false;
    });
    client.defineCommand('svcRateLimitHit', { lua: HIT_SCRIPT });
    return { client, hit: (client as unknown as { svcRateLimitHit: HitCommand }).svcRateLimitHit.bind(client) };
  });
  connecting.catch(() => undefined);

  const run = async (keys: readonly string[], windowMs: number, now: number) => {
    const { hit } = await connecting;
    const reply = await hit(keys.length, ...keys.map((key) => `${base}:${key}`), windowMs);
    return keys.map((_, i) => ({ count: Number(reply[2 * i]), resetAt: now + Number(reply[2 * i + 1]) }));
  };

  return {
    async hit(key, windowMs, now) {
      const [result] = await run([key], windowMs, now);
      return result!;
    },
    async hitMany(keys, windowMs, now) {
      if (new Set(keys).size !== keys.length) throw new TypeError('hitMany needs distinct keys');
      const { client } = await connecting;
      // A cluster runs a script only on keys of one slot: there, one script per key, sent together.
      if (client.isCluster) return (await Promise.all(keys.map((key) => run([key], windowMs, now)))).flat();
      return run(keys, windowMs, now);
    },
    async ready() {
      const { client } = await connecting;
      await client.ping();
    },
    async close() {
      const { client } = await connecting;
      if (client.status !== 'ready') return client.disconnect(); // nothing pending can still be answered
      await client.quit().then(
        () => undefined,
        () => client.disconnect(),
      );
    },
  };
}
