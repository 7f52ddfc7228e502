import { StoreConflictError } from '@svc-licensing/license-engine';
import type { CounterRecord } from '@svc-licensing/license-engine';
import { createConnection } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMySqlStore } from '../../src/stores/mysql/index.js';
import type { MySqlStore } from '../../src/stores/mysql/index.js';
import { createTestDatabase } from '../support/mysql-database.js';
import type { TestDatabase } from '../support/mysql-database.js';

let db: TestDatabase;
let store: MySqlStore;
beforeAll(async () => {
  db = await createTestDatabase('tx');
  store = createMySqlStore(db.url, { poolSize: 6, lockWaitTimeoutSeconds: 2 });
  await store.ready();
});
afterAll(async () => {
  await store.close();
  await db.drop();
});

const counter = (id: string, count = 0): CounterRecord => ({ id, accountId: 'acc_t', count, expiresAt: '2030-01-01T00:00:00Z' });
const countOf = (id: string) => store.transaction(async (tx) => (await tx.get('counters', id))?.count);

/** Resolves once `n` parties have arrived. */
function barrier(n: number) {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return () => {
    if (++arrived === n) open();
    return opened;
  };
}

describe('mysql store transactions', () => {
  test('a unit of work that throws leaves nothing behind', async () => {
    const failure = new Error('stop');
    await expect(
      store.transaction(async (tx) => {
        await tx.insert('counters', counter('rollback-1'));
        await tx.update('counters', counter('rollback-1', 5));
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await countOf('rollback-1')).toBeUndefined();
  });

  test('held writes go with the COMMIT, and a held update that matched no row keeps nothing, with or without MariaDB guard blocks', async () => {
    // `compoundStatements: false`: the path of a server without anonymous blocks (MySQL 8).
    const plain = createMySqlStore(db.url, { poolSize: 2, compoundStatements: false });
    try {
      for (const [name, s] of [['guarded', store], ['plain', plain]] as const) {
        await s.transaction(async (tx) => {
          await tx.insert('counters', counter(`held-${name}`, 1), { defer: true });
          await tx.update('counters', counter(`held-${name}`, 2), { defer: true });
        });
        expect(await s.transaction(async (tx) => (await tx.get('counters', `held-${name}`))?.count)).toBe(2);
        const failure = await s
          .transaction(async (tx) => {
            await tx.insert('counters', counter(`held-kept-${name}`, 1), { defer: true });
            await tx.update('counters', counter(`held-missing-${name}`, 1), { defer: true });
            await tx.insert('counters', counter(`held-after-${name}`, 1), { defer: true });
          })
          .catch((e: unknown) => e);
        expect((failure as Error).message, name).toBe(`no counters record held-missing-${name} to update`);
        for (const id of [`held-kept-${name}`, `held-missing-${name}`, `held-after-${name}`]) {
          expect(await s.transaction((tx) => tx.get('counters', id)), `${name}: ${id}`).toBeNull();
        }
      }
    } finally {
      await plain.close();
    }
  });

  test('a value that looks like SQL goes into a held batch as data, never as a statement', async () => {
    const hostile = "x'); DROP TABLE `counters`; -- ?";
    await store.transaction((tx) => tx.insert('counters', { ...counter('held-hostile'), accountId: hostile }, { defer: true }));
    const [a, b] = await store.transaction((tx) => Promise.all([tx.get('counters', 'held-hostile'), tx.findMany('counters', { accountId: hostile })]));
    expect(a?.accountId).toBe(hostile);
    expect(b.map((r) => r.id)).toEqual(['held-hostile']);
  });

  test('locked read-modify-write from many concurrent transactions loses no update', async () => {
    await store.transaction((tx) => tx.insert('counters', counter('hot')));
    await Promise.all(
      Array.from({ length: 30 }, () =>
        store.transaction(async (tx) => {
          const row = await tx.get('counters', 'hot', { lock: true });
          await tx.update('counters', { ...row!, count: row!.count + 1 });
        }),
      ),
    );
    expect(await countOf('hot')).toBe(30);
  });

  test('a deadlock is retried, even when the work swallowed the error, and both units apply once', async () => {
    await store.transaction(async (tx) => {
      await tx.insert('counters', counter('dl-a'));
      await tx.insert('counters', counter('dl-b'));
    });
    const bothLockedFirst = barrier(2);
    let attempts = 0;
    const crossing = (first: string, second: string, swallow: boolean) =>
      store.transaction(async (tx) => {
        attempts++;
        const a = await tx.get('counters', first, { lock: true });
        await bothLockedFirst();
        try {
          const b = await tx.get('counters', second, { lock: true });
          await tx.update('counters', { ...a!, count: a!.count + 1 });
          await tx.update('counters', { ...b!, count: b!.count + 1 });
        } catch (error) {
          if (!swallow) throw error;
        }
      });
    await Promise.all([crossing('dl-a', 'dl-b', true), crossing('dl-b', 'dl-a', true)]);
    expect(attempts).toBeGreaterThan(2);
    expect([await countOf('dl-a'), await countOf('dl-b')]).toEqual([2, 2]);
  });

  test('a unique-key clash is a StoreConflictError naming the key, not retried, and rolls back the unit', async () => {
    await store.transaction(async (tx) => {
      await tx.insert('accounts', { id: 'acc_x' } as never);
      await tx.insert('apiKeys', { id: 'key_1', accountId: 'acc_x', name: 'a', prefix: 'svc_sk_abc', hash: 'h1', lastUsedAt: null, createdAt: 'x' });
    });
    let attempts = 0;
    const error = await store
      .transaction(async (tx) => {
        attempts++;
        await tx.insert('counters', counter('before-clash'));
        await tx.insert('apiKeys', { id: 'key_2', accountId: 'acc_x', name: 'b', prefix: 'svc_sk_abc', hash: 'h1', lastUsedAt: null, createdAt: 'x' });
      })
      .catch((e: unknown) => e);
    expect(StoreConflictError.is(error)).toBe(true);
    expect(error).toMatchObject({ collection: 'apiKeys', index: 'hash' });
    expect(attempts).toBe(1);
    expect(await countOf('before-clash')).toBeUndefined();
    const dupId = await store.transaction((tx) => tx.insert('counters', counter('hot'))).catch((e: unknown) => e);
    expect(dupId).toMatchObject({ code: 'store_conflict', collection: 'counters', index: 'id' });
  });

  test('an insert asked for with reads in one turn runs after them, and a clash fails only the insert while the reads still answer', async () => {
    await store.transaction((tx) => tx.insert('counters', counter('turn-taken', 7)));
    const seen = await store.transaction(async (tx) => {
      const [, before, other] = await Promise.all([
        tx.insert('counters', counter('turn-new', 1)),
        tx.get('counters', 'turn-new'),
        tx.get('counters', 'turn-taken'),
      ]);
      // The reads of the turn went first (on Galera the causality wait comes before a read only).
      expect(before).toBeNull();
      const mine = await tx.get('counters', 'turn-new');
      const [clash, taken, none] = await Promise.allSettled([
        tx.insert('counters', counter('turn-taken', 1)),
        tx.get('counters', 'turn-taken'),
        tx.findMany('counters', { accountId: 'acc_nobody' }),
      ]);
      // The unit goes on after the clash, as an insert-first claim does.
      await tx.update('counters', counter('turn-new', 2));
      return { mine: mine?.count, other: other?.count, clash, taken, none };
    });
    expect(seen.mine).toBe(1);
    expect(seen.other).toBe(7);
    expect(seen.clash.status === 'rejected' && StoreConflictError.is(seen.clash.reason)).toBe(true);
    expect(seen.taken).toMatchObject({ status: 'fulfilled', value: { count: 7 } });
    expect(seen.none).toEqual({ status: 'fulfilled', value: [] });
    expect(await countOf('turn-new')).toBe(2);
    expect(await countOf('turn-taken')).toBe(7);
  });

  test('reads asked for after held writes go in their query and see them; a held write that fails fails the reads and the unit', async () => {
    const seen = await store.transaction(async (tx) => {
      await tx.insert('counters', counter('held-read-1', 3), { defer: true });
      await tx.update('counters', counter('held-read-1', 4), { defer: true });
      const [one, many, none] = await Promise.all([
        tx.get('counters', 'held-read-1'),
        tx.findMany('counters', { accountId: 'acc_t' }),
        tx.get('counters', 'held-read-none'),
      ]);
      // A lone read after a held write, too.
      await tx.insert('counters', counter('held-read-2', 1), { defer: true });
      const two = await tx.get('counters', 'held-read-2');
      return { one: one?.count, many: many.map((c) => c.id), none, two: two?.count };
    });
    expect(seen.one).toBe(4);
    expect(seen.many).toContain('held-read-1');
    expect(seen.none).toBeNull();
    expect(seen.two).toBe(1);
    const failure = await store
      .transaction(async (tx) => {
        await tx.insert('counters', counter('held-read-kept', 1), { defer: true });
        await tx.update('counters', counter('held-read-missing', 1), { defer: true });
        return tx.get('counters', 'held-read-kept');
      })
      .catch((e: unknown) => e);
    expect((failure as Error).message).toBe('no counters record held-read-missing to update');
    expect(await countOf('held-read-kept')).toBeUndefined();
  });

  test('a statement the work did not wait for still runs before the unit ends: kept on COMMIT, undone on ROLLBACK, never left on the connection', async () => {
    const single = createMySqlStore(db.url, { poolSize: 1 });
    try {
      // Each insert is asked for only after a read answered, when the work has already returned.
      await single.transaction(async (tx) => {
        void tx.get('counters', 'nothing').then(() => tx.insert('counters', counter('unawaited-kept', 1)));
      });
      const failure = new Error('stop');
      await expect(
        single.transaction(async (tx) => {
          void tx.get('counters', 'nothing').then(() => tx.insert('counters', counter('unawaited-undone', 1)));
          throw failure;
        }),
      ).rejects.toBe(failure);
      // The pool's one connection carries no open transaction into the next unit: a unit that
      // writes and fails leaves nothing, and the next one still commits on its own.
      await single.transaction((tx) => tx.insert('counters', counter('unawaited-next', 1)));
      await expect(single.transaction(async () => Promise.reject(failure))).rejects.toBe(failure);
      expect(await countOf('unawaited-kept')).toBe(1);
      expect(await countOf('unawaited-undone')).toBeUndefined();
      expect(await countOf('unawaited-next')).toBe(1);
    } finally {
      await single.close();
    }
  });

  test('a lock held past the wait timeout is retried a bounded number of times, then reported busy', async () => {
    const busy = createMySqlStore(db.url, { poolSize: 1, lockWaitTimeoutSeconds: 1, maxRetries: 1 });
    await busy.transaction((tx) => tx.insert('counters', counter('held')));
    const holder = await createConnection({ uri: db.url });
    try {
      await holder.query('START TRANSACTION');
      await holder.query('SELECT doc FROM counters WHERE id = ? FOR UPDATE', ['held']);
      let attempts = 0;
      const error = await busy
        .transaction(async (tx) => {
          attempts++;
          return tx.get('counters', 'held', { lock: true });
        })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'MySqlStoreError', code: 'store_busy' });
      expect((error as Error).cause).toMatchObject({ errno: 1205 });
      expect(attempts).toBe(2);
      await holder.query('ROLLBACK');
      expect(await busy.transaction(async (tx) => (await tx.get('counters', 'held', { lock: true }))?.id)).toBe('held');
    } finally {
      await holder.end();
      await busy.close();
    }
  });

  test('update of a missing record fails and writes nothing; delete of a missing record is fine', async () => {
    await expect(store.transaction((tx) => tx.update('counters', counter('nobody', 1)))).rejects.toThrow(/no counters record nobody/);
    await expect(store.transaction((tx) => tx.delete('counters', 'nobody'))).resolves.toBeUndefined();
    expect(await countOf('nobody')).toBeUndefined();
  });

  test('an update that changes nothing still counts as found', async () => {
    await store.transaction((tx) => tx.insert('counters', counter('same', 3)));
    await expect(store.transaction((tx) => tx.update('counters', counter('same', 3)))).resolves.toBeUndefined();
  });
});
