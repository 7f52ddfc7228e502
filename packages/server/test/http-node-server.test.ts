import { expect, it } from 'vitest';
import { createApp, defineRoute, listen } from '../src/index.js';
import { fileURLToPath } from 'node:url';
import { exited, onLines, spawnTs } from './cli-process.js';
import { createHarness } from './helpers/harness.js';

const slowServerEntry = fileURLToPath(new URL('./helpers/slow-server.ts', import.meta.url));

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
