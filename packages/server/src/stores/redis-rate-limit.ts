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
 * window's first call) PEXPIRE it to its window length (`ARGV[i]` for `KEYS[i]`); return the count
 * and the time left. A key may come more than once (the same bucket hit by several calls): each
 * time is one INCR, so each call gets its own count. No `PEXPIRE ... NX`, so Redis 6 works too.
 */
const HIT_SCRIPT = `
local out = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then
    redis.call('PEXPIRE', key, ARGV[i])
    ttl = tonumber(ARGV[i])
  end
  out[2 * i - 1] = count
  out[2 * i] = ttl
end
return out`;

type HitCommand = (numberOfKeys: number, ...args: Array<string | number>) => Promise<number[]>;

/** A call waiting for the next script call (see {@link createRedisRateLimitStore}). */
interface Waiting {
  keys: readonly string[];
  windowMs: number;
  now: number;
  resolve: (results: Array<{ count: number; resetAt: number }>) => void;
  reject: (error: unknown) => void;
}

/**
 * Rate-limit windows in Redis, shared by every server process that uses the same Redis and
 * prefix. Built on unstorage's redis driver; the counting uses the driver's ioredis client
 * directly: one Lua script call (INCR + PEXPIRE on the window's first call + PTTL per key), atomic.
 * The calls made until the event loop has run the callbacks of its current turn (`setImmediate`)
 * go in one script call: one round trip, one command for Redis to run, however many requests
 * arrived together (each key's INCR still counts each call exactly, in order).
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

  const run = async (keys: readonly string[], windows: readonly number[]) => {
    const { hit } = await connecting;
    return hit(keys.length, ...keys.map((key) => `${base}:${key}`), ...windows);
  };

  let waiting: Waiting[] = [];
  const send = () => {
    const calls = waiting;
    waiting = [];
    const keys = calls.flatMap((c) => c.keys);
    const windows = calls.flatMap((c) => c.keys.map(() => c.windowMs));
    run(keys, windows).then(
      (reply) => {
        let at = 0;
        for (const c of calls) c.resolve(c.keys.map(() => ({ count: Number(reply[at++]), resetAt: c.now + Number(reply[at++]) })));
      },
      (error: unknown) => {
        for (const c of calls) c.reject(error);
      },
    );
  };
  /** Counts `keys` with the other calls of this turn of the event loop, in one script call. */
  const together = (keys: readonly string[], windowMs: number, now: number) =>
    new Promise<Array<{ count: number; resetAt: number }>>((resolve, reject) => {
      if (waiting.length === 0) setImmediate(send);
      waiting.push({ keys, windowMs, now, resolve, reject });
    });

  const hitMany = async (keys: readonly string[], windowMs: number, now: number) => {
    if (new Set(keys).size !== keys.length) throw new TypeError('hitMany needs distinct keys');
    const { client } = await connecting;
    if (!client.isCluster) return together(keys, windowMs, now);
    // A cluster runs a script only on keys of one slot: there, one script per key, sent together.
    const replies = await Promise.all(keys.map((key) => run([key], [windowMs])));
    return replies.map((reply) => ({ count: Number(reply[0]), resetAt: now + Number(reply[1]) }));
  };

  return {
    async hit(key, windowMs, now) {
      const [result] = await hitMany([key], windowMs, now);
      return result!;
    },
    hitMany,
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
