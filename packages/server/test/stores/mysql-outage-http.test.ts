import { randomBytes } from 'node:crypto';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { cleanEnv, exited, runCli, startServe } from '../support/cli-process.js';
import { createTestDatabase } from '../support/mysql-database.js';
import type { TestDatabase } from '../support/mysql-database.js';
import { createTcpProxy } from '../support/tcp-proxy.js';
import type { TcpProxy } from '../support/tcp-proxy.js';

// A real server process whose database sits behind a proxy that the test closes and reopens,
// as a database restart looks to the server (the real MariaDB keeps serving other tests).
let db: TestDatabase;
let proxy: TcpProxy;
let server: { child: ChildProcessWithoutNullStreams; url: string };
let apiKey = '';

beforeAll(async () => {
  db = await createTestDatabase('httpdown');
  proxy = await createTcpProxy({ host: '127.0.0.1', port: 3306 });
  const url = `mysql://root@127.0.0.1:${proxy.port}/${db.name}?connectTimeoutMs=1000&queryTimeoutMs=2000`;
  const env = { ...cleanEnv, SVC_MASTER_KEY: randomBytes(32).toString('base64'), SVC_OUTBOX_DIR: '/tmp' };
  const created = await runCli(['account', 'create', '--name', 'Down', '--owner-email', 'o@down.test', '--database', url], env);
  apiKey = (JSON.parse(created.stdout) as { apiKey: string }).apiKey;
  server = await startServe(['--database', url, '--port', '0', '--host', '127.0.0.1'], env);
}, 60_000);

afterAll(async () => {
  if (server) {
    server.child.kill('SIGTERM');
    await exited(server.child);
  }
  await proxy?.stop();
  await db?.drop();
}, 60_000);

const account = async () => {
  const res = await fetch(`${server.url}/v1/account`, { headers: { authorization: `Bearer ${apiKey}` } });
  return { status: res.status, body: (await res.json()) as any };
};

test('while the database is down the server answers 500 internal_error, and serves again once it is back', async () => {
  expect((await account()).status).toBe(200);
  await proxy.stop();
  for (let i = 0; i < 3; i++) {
    const down = await account();
    expect(down.status).toBe(500);
    expect(down.body.error.code).toBe('internal_error');
  }
  await proxy.start();
  // The store answers at once while the database is known down, and probes it every half second.
  let back = await account();
  for (const deadline = Date.now() + 5000; back.status !== 200 && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    back = await account();
  }
  expect(back.status).toBe(200);
  expect(back.body.name).toBe('Down');
});
