import type { CounterRecord } from '@svc-licensing/license-engine';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMySqlStore } from '../../src/stores/mysql/index.js';
import type { MySqlStore } from '../../src/stores/mysql/index.js';
import { createTestDatabase } from '../support/mysql-database.js';
import type { TestDatabase } from '../support/mysql-database.js';
import { createTcpProxy } from '../support/tcp-proxy.js';
import type { TcpProxy } from '../support/tcp-proxy.js';
import { holdRowLock } from '../support/row-lock.js';

// The database "goes down" by closing a proxy in front of it: the real server keeps running for
// everyone else's tests.
let db: TestDatabase;
let proxy: TcpProxy;
let store: MySqlStore;
beforeAll(async () => {
  db = await createTestDatabase('outage');
  proxy = await createTcpProxy({ host: '127.0.0.1', port: 3306 });
  store = createMySqlStore(`mysql://root@127.0.0.1:${proxy.port}/${db.name}`, {
    poolSize: 3,
    connectTimeoutMs: 1000,
    queryTimeoutMs: 1500,
    lockWaitTimeoutSeconds: 30,
  });
  await store.ready();
});
afterAll(async () => {
  await store.close();
  await proxy.stop();
  await db.drop();
});

const counter = (id: string): CounterRecord => ({ id, accountId: 'acc_o', count: 1, expiresAt: '2030-01-01T00:00:00Z' });
const read = (id: string) => store.transaction(async (tx) => (await tx.get('counters', id))?.id ?? null);
/**
 * Waits until the store answers again: after an outage it fails fast until a background probe
 * (every half second) finds the database back.
 */
const back = async () => {
  const deadline = Date.now() + 5000;
  for (;;) {
    const value = await read('kept').catch((error: unknown) => (Date.now() > deadline ? Promise.reject(error) : null));
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};
/** Keeps three pooled connections open and idle, so the outage hits connections in use. */
const warm = () => Promise.all([read('x'), read('y'), read('z')]);

describe('mysql store outages', () => {
  test('while the database is down every call fails with store_unavailable; it works again when the database returns', async () => {
    await store.transaction((tx) => tx.insert('counters', counter('kept')));
    await warm();
    await proxy.stop();
    for (let i = 0; i < 3; i++) {
      await expect(read('kept')).rejects.toMatchObject({ name: 'MySqlStoreError', code: 'store_unavailable' });
    }
    await expect(store.transaction((tx) => tx.insert('counters', counter('lost')))).rejects.toMatchObject({ code: 'store_unavailable' });
    await proxy.start();
    expect(await back()).toBe('kept');
    expect(await read('lost')).toBeNull();
  });

  test('connections killed by the server are replaced without the caller noticing', async () => {
    await warm();
    const ids = await db.admin<{ id: number }[]>('SELECT ID AS id FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()', [db.name]);
    expect(ids.length).toBeGreaterThan(0);
    for (const { id } of ids) await db.admin('KILL ?', [id]);
    expect(await read('kept')).toBe('kept');
    expect(await Promise.all([read('kept'), read('kept'), read('kept')])).toEqual(['kept', 'kept', 'kept']);
  });

  test('a network that swallows packets gives store_timeout instead of hanging', async () => {
    await warm();
    await proxy.blackhole();
    await expect(read('kept')).rejects.toMatchObject({ name: 'MySqlStoreError', code: 'store_timeout' });
    await proxy.stop();
    await proxy.start();
    expect(await back()).toBe('kept');
  });

  test('a statement stuck behind a lock ends at the query timeout and frees its connection', async () => {
    const lock = await holdRowLock(db.url, 'kept');
    try {
      await expect(store.transaction((tx) => tx.get('counters', 'kept', { lock: true }))).rejects.toMatchObject({ code: 'store_timeout' });
    } finally {
      await lock.end();
    }
    expect(await read('kept')).toBe('kept');
  });
});
