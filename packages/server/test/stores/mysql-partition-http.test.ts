import { randomBytes } from 'node:crypto';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { cleanEnv, exited, runCli, startServe } from '../support/cli-process.js';
import { createTestDatabase } from '../support/mysql-database.js';
import type { TestDatabase } from '../support/mysql-database.js';
import { startStoppableProxy } from '../support/stoppable-proxy.js';
import type { StoppableProxy } from '../support/stoppable-proxy.js';

// A real server process whose database link silently stops forwarding (the proxy process between
// them gets SIGSTOP), with the store's default timeouts: the documented bound is about 2 s for a
// request in flight (1 s without an answer, then a probe that gets none within the 1 s connect
// timeout), and an immediate 500 while the database is known down.
let db: TestDatabase;
let proxy: StoppableProxy;
let server: { child: ChildProcessWithoutNullStreams; url: string };
let apiKey = '';

beforeAll(async () => {
  db = await createTestDatabase('partitionhttp');
  proxy = await startStoppableProxy({ host: '127.0.0.1', port: 3306 });
  const url = `mysql://root@127.0.0.1:${proxy.port}/${db.name}`;
  const env = { ...cleanEnv, SVC_MASTER_KEY: randomBytes(32).toString('base64'), SVC_OUTBOX_DIR: '/tmp' };
  const created = await runCli(['account', 'create', '--name', 'Cut', '--owner-email', 'o@cut.test', '--database', url], env);
  apiKey = (JSON.parse(created.stdout) as { apiKey: string }).apiKey;
  server = await startServe(['--database', url, '--port', '0', '--host', '127.0.0.1'], env);
}, 60_000);

afterAll(async () => {
  proxy?.resume();
  if (server) {
    server.child.kill('SIGTERM');
    await exited(server.child);
  }
  await proxy?.stop();
  await db?.drop();
}, 60_000);

const ready = async () => {
  const started = performance.now();
  const res = await fetch(`${server.url}/ready`);
  return { status: res.status, body: (await res.json()) as any, ms: performance.now() - started };
};

const account = async () => {
  const started = performance.now();
  const res = await fetch(`${server.url}/v1/account`, { headers: { authorization: `Bearer ${apiKey}` } });
  return { status: res.status, body: (await res.json()) as any, ms: performance.now() - started };
};

test('a silent partition answers 500 internal_error within about 2 s, then at once, and the server heals by itself', async () => {
  expect((await account()).status).toBe(200);
  expect(await ready()).toMatchObject({ status: 200, body: { status: 'ready' } });
  proxy.pause();
  try {
    // A load balancer's check: 503 within about a second, never hanging.
    const notReady = await ready();
    expect(notReady.status).toBe(503);
    expect(notReady.body.error.code).toBe('not_ready');
    expect(notReady.ms).toBeLessThan(2500);
    const first = await Promise.all([account(), account(), account()]);
    for (const answer of first) {
      expect(answer.status).toBe(500);
      expect(answer.body.error.code).toBe('internal_error');
      expect(answer.ms).toBeLessThan(3000);
    }
    for (let i = 0; i < 5; i++) {
      const answer = await account();
      expect(answer.status).toBe(500);
      // At once: below the 1 s connect timeout that any attempt on the network would take.
      expect(answer.ms).toBeLessThan(700);
    }
  } finally {
    proxy.resume();
  }
  let back = await account();
  for (const deadline = Date.now() + 5000; back.status !== 200 && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    back = await account();
  }
  expect(back.status).toBe(200);
  expect(back.body.name).toBe('Cut');
  expect((await ready()).status).toBe(200);
}, 30_000);
