import { existsSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { createMySqlStore, migrate } from '../../src/stores/mysql/index.js';
import { createTestDatabase, mysqlServerUrl } from '../support/mysql-database.js';
import type { TestDatabase } from '../support/mysql-database.js';

/** The test server's Unix socket, when the server runs on this host and has one we can reach. */
async function localSocket(): Promise<string | null> {
  const db = await createTestDatabase('socket_probe');
  try {
    const [row] = await db.admin<[{ socket: string | null }]>('SELECT @@socket AS socket');
    const host = new URL(mysqlServerUrl).hostname;
    return row?.socket && ['127.0.0.1', 'localhost', '[::1]'].includes(host) && existsSync(row.socket) ? row.socket : null;
  } finally {
    await db.drop();
  }
}

const socket = await localSocket();

describe('a database on the same host reached over its Unix socket', () => {
  let db: TestDatabase | null = null;
  afterEach(async () => {
    await db?.drop();
    db = null;
  });

  test.skipIf(socket === null)('socketPath in the URL, next to store options, makes every connection of migrate and the store use the socket', async () => {
    db = await createTestDatabase('socket');
    // The same user and password as the test URL, on host `localhost` without a port: only the socket reaches it.
    const url = new URL(`${mysqlServerUrl}/${db.name}`);
    url.hostname = 'localhost';
    url.port = '';
    url.searchParams.set('socketPath', socket!);
    url.searchParams.set('poolSize', '2');
    const text = url.toString();

    expect((await migrate(text)).applied.length).toBeGreaterThan(0);
    const store = createMySqlStore(text);
    try {
      await store.transaction((tx) => tx.insert('accounts', { id: 'acc_sock' } as never));
      expect(await store.transaction(async (tx) => (await tx.get('accounts', 'acc_sock'))?.id)).toBe('acc_sock');
      // MariaDB and MySQL show a socket client's host as `localhost` and a TCP client's as `host:port`.
      const hosts = await db.admin<{ host: string }[]>('SELECT HOST AS host FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()', [db.name]);
      expect(hosts.length).toBeGreaterThan(0);
      expect(hosts.map((h) => h.host)).toEqual(hosts.map(() => 'localhost'));
    } finally {
      await store.close();
    }
  });
});
