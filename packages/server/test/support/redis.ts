import type { Redis } from 'ioredis';

/** The Redis the tests use. */
export const redisTestUrl = process.env['SVC_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** Deletes every key under `<base>:`, so a test run leaves nothing behind. Resolves with how many. */
export async function deleteRedisKeys(redis: Redis, base: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${base.replace(/[*?[\]\\]/g, '\\$&')}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}
