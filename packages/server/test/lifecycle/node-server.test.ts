import { expect, it } from 'vitest';
import { connect } from 'node:net';
import { createApp, defineRoute, listen } from '../../src/index.js';
import { fileURLToPath } from 'node:url';
import { exited, onLines, spawnTs } from '../support/cli-process.js';
import { createHarness } from '../support/harness.js';

const slowServerEntry = fileURLToPath(new URL('../support/slow-server.ts', import.meta.url));

it('finishes requests in flight on close, then refuses new connections', async () => {
  const h = await createHarness('in-process');
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const startedP = new Promise<void>((resolve) => (started = resolve));
  const slow = defineRoute({
    method: 'GET', path: '/v1/slow', api: 'public', tag: 'Test', summary: 'Waits for the test',
    handler: async () => {
      started();
      await gate;
      return { done: true };
    },
  });
  const app = createApp({ engine: h.engine, publicBaseUrl: 'http://x.test', log: false, routes: [slow] });
  const server = await listen(app, { port: 0, handleSignals: false });
  expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  const inFlight = fetch(`${server.url}/v1/slow`);
  await startedP;
  let closed = false;
  const closing = server.close().then(() => (closed = true));
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(closed).toBe(false);
  release();
  const res = await inFlight;
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ done: true });
  await closing;
  await expect(fetch(`${server.url}/health`)).rejects.toThrow();
});

it('on SIGTERM lets the request in flight finish, then exits 0', async () => {
  const child = spawnTs(slowServerEntry, []);
  const lines: string[] = [];
  const waitFor = (prefix: string) =>
    new Promise<string>((resolve) => {
      const found = lines.find((l) => l.startsWith(prefix));
      if (found) return resolve(found);
      const timer = setInterval(() => {
        const line = lines.find((l) => l.startsWith(prefix));
        if (line) {
          clearInterval(timer);
          resolve(line);
        }
      }, 10);
    });
  onLines(child, (line) => lines.push(line));
  const url = (await waitFor('url ')).slice(4);
  const inFlight = fetch(`${url}/v1/slow`);
  await waitFor('slow-started');
  child.kill('SIGTERM');
  const res = await inFlight;
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ done: true });
  expect(await exited(child)).toBe(0);
  await expect(fetch(`${url}/health`)).rejects.toThrow();
});

it('on close ends an idle keep-alive connection after its grace, without waiting for the client to drop it', async () => {
  const h = await createHarness('in-process');
  const app = createApp({ engine: h.engine, publicBaseUrl: 'http://x.test', log: false });
  // Node's own keep-alive timeout (5 s) or the cut after 20 s would end it too: close() must end it
  // after the grace of 100 ms, so the client sees the FIN well before those (3 s is the bound here).
  const server = await listen(app, { port: 0, handleSignals: false, idleGraceMs: 100, shutdownTimeoutMs: 20_000 });
  const { port } = new URL(server.url);
  // A keep-alive client that never closes its side by itself (browsers and agents keep idle connections for seconds).
  const socket = connect(Number(port), '127.0.0.1');
  let received = '';
  const ended = new Promise<void>((resolve) => socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk)).once('end', () => resolve()));
  socket.write('GET /health HTTP/1.1\r\nHost: x.test\r\n\r\n');
  while (!received.includes('\r\n\r\n')) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(received).toMatch(/^HTTP\/1\.1 200 /);
  expect(received.toLowerCase()).toContain('connection: keep-alive');
  const closed = server.close();
  const outcome = await Promise.race([
    Promise.all([ended, closed]).then(() => 'ended and closed'),
    new Promise((resolve) => setTimeout(resolve, 3_000, 'still open after 3 s')),
  ]);
  socket.destroy();
  expect(outcome).toBe('ended and closed');
});
