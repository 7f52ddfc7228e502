import { expect, it } from 'vitest';
import { createApp, defineRoute, listen } from '@svc-licensing/server';
import { createHarness } from './helpers/harness.js';

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
