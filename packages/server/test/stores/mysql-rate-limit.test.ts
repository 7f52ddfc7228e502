import { createConnection } from 'mysql2/promise';
import type { RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMySqlRateLimitStore, createMySqlStore } from '../../src/stores/mysql/index.js';
import type { MySqlStore } from '../../src/stores/mysql/index.js';
import { createTestDatabase } from '../support/mysql-database.js';
import type { TestDatabase } from '../support/mysql-database.js';

// Two stores on one database stand for two server instances.
let db: TestDatabase;
let first: MySqlStore;
let second: MySqlStore;
beforeAll(async () => {
  db = await createTestDatabase('ratelimit');
  first = createMySqlStore(db.url, { poolSize: 4 });
  second = createMySqlStore(db.url, { poolSize: 4 });
  await first.ready();
  await second.ready();
});
afterAll(async () => {
  await Promise.all([first.close(), second.close()]);
  await db.drop();
});

const HOUR = 3_600_000;

describe('mysql rate-limit store', () => {
  test('counts calls in a window that starts at the first call, and starts a new window once it ended', async () => {
    const limits = createMySqlRateLimitStore(first);
    const t0 = 1_900_000_000_000;
    expect(await limits.hit('ip:1', HOUR, t0)).toEqual({ count: 1, resetAt: t0 + HOUR });
    expect(await limits.hit('ip:1', HOUR, t0 + 1000)).toEqual({ count: 2, resetAt: t0 + HOUR });
    expect(await limits.hit('ip:2', HOUR, t0 + 1000)).toEqual({ count: 1, resetAt: t0 + 1000 + HOUR });
    expect(await limits.hit('ip:1', HOUR, t0 + HOUR)).toEqual({ count: 1, resetAt: t0 + 2 * HOUR });
  });

  test('instances share one budget: 40 concurrent calls from two instances each get their own count', async () => {
    const a = createMySqlRateLimitStore(first);
    const b = createMySqlRateLimitStore(second);
    // Later than every window above: the first test's last hit sweeps windows ended by its time, in the background.
    const now = 1_900_000_000_000 + 10 * HOUR;
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).hit('key:shared', HOUR, now)));
    expect(results.map((r) => r.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(new Set(results.map((r) => r.resetAt))).toEqual(new Set([now + HOUR]));
    expect((await a.hit('key:shared', HOUR, now)).count).toBe(41);
  });

  test('hitMany counts each of several buckets exactly, across instances, each with its own window', async () => {
    const a = createMySqlRateLimitStore(first);
    const b = createMySqlRateLimitStore(second);
    const now = 1_900_000_000_000 + 20 * HOUR;
    expect(await a.hit('many:ip', HOUR, now)).toEqual({ count: 1, resetAt: now + HOUR });
    // Results come back in the order asked, whatever order the rows are locked in.
    expect(await b.hitMany(['many:ip', 'many:key'], HOUR, now + 5)).toEqual([
      { count: 2, resetAt: now + HOUR },
      { count: 1, resetAt: now + 5 + HOUR },
    ]);
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).hitMany(['many:key', 'many:ip'], HOUR, now + 10)));
    expect(results.map((r) => r[0]!.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => i + 2));
    expect(results.map((r) => r[1]!.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => i + 3));
    // Once the IP window has ended, the next call opens a new one while the key window runs on.
    expect(await a.hitMany(['many:ip', 'many:key'], HOUR, now + HOUR)).toEqual([
      { count: 1, resetAt: now + 2 * HOUR },
      { count: 32, resetAt: now + 5 + HOUR },
    ]);
    await expect(a.hitMany(['many:ip', 'many:ip'], HOUR, now)).rejects.toThrow(/distinct/);
  });

  test('an instance whose clock runs behind still gets the window another instance opened', async () => {
    const a = createMySqlRateLimitStore(first);
    const b = createMySqlRateLimitStore(second);
    const now = 1_900_000_000_000 + 30 * HOUR;
    expect(await a.hit('skew', HOUR, now)).toEqual({ count: 1, resetAt: now + HOUR });
    // 2 s behind: the window ends more than one window length after b's `now`.
    expect(await b.hit('skew', HOUR, now - 2000)).toEqual({ count: 2, resetAt: now + HOUR });
    expect(await b.hitMany(['skew:new', 'skew'], HOUR, now - 2000)).toEqual([
      { count: 1, resetAt: now - 2000 + HOUR },
      { count: 3, resetAt: now + HOUR },
    ]);
  });

  test('counters live in a MEMORY table (no redo log; a database restart only resets windows)', async () => {
    const connection = await createConnection({ uri: db.url });
    try {
      const [rows] = await connection.query<RowDataPacket[]>(
        "SELECT `ENGINE` AS engine FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'rate_limits'",
      );
      expect(rows.map((row) => row['engine'])).toEqual(['MEMORY']);
    } finally {
      await connection.end();
    }
  });

  test('refuses a window the packed result cannot carry', async () => {
    await expect(createMySqlRateLimitStore(first).hit('too-long', 2 ** 32, 1_900_000_000_000)).rejects.toThrow(RangeError);
  });
});
