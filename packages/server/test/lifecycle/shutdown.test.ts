import { Agent, request } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createApp, listen } from '../../src/index.js';
import { exited, openFolderEngine, startServe } from '../support/cli-process.js';
import { createHarness, PUBLIC_BASE_URL } from '../support/harness.js';
import { STORE_KINDS } from '../support/stores.js';

/**
 * Real keep-alive clients create licenses as fast as they can while the server shuts down. No
 * request may be reset: each one is either answered (and its license exists) or refused before
 * it was sent (a new connection to a closed port), so a client always knows whether it wrote.
 */
interface Tally {
  ok: string[];
  closeHeaders: number;
  refused: number;
  resets: string[];
}

function post(agent: Agent, url: string, path: string, body: unknown, apiKey: string): Promise<{ status: number; connection: string | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request(`${url}${path}`, {
      agent,
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** One client on its own keep-alive agent: creates licenses until the server refuses its connection. */
async function client(url: string, apiKey: string, planId: string, tally: Tally): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let i = 0; ; i++) {
      try {
        const res = await post(agent, url, '/v1/licenses', { plan: planId, email: `c${i}-${Math.random().toString(36).slice(2)}@example.test` }, apiKey);
        if (res.status !== 201 && res.status !== 200) throw new Error(`create answered ${res.status}: ${res.text}`);
        tally.ok.push((JSON.parse(res.text) as { id: string }).id);
        if (res.connection === 'close') tally.closeHeaders++;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ECONNREFUSED') {
          tally.refused++;
          return;
        }
        if (code === 'ECONNRESET' || code === 'EPIPE') {
          tally.resets.push(`${code}: ${(error as Error).message}`);
          return;
        }
        throw error;
      }
    }
  } finally {
    agent.destroy();
  }
}

const CLIENTS = 12;

describe('shutdown under load with keep-alive clients', () => {
  for (const store of STORE_KINDS) {
    it(`close() on ${store}: no request is reset, every answered create is stored`, async () => {
      const h = await createHarness({ mode: 'in-process', store });
      const product = await h.api('POST', '/products', { name: 'P', keyPrefix: 'SHUT', graceDays: 0, offlineDays: 7 });
      const plan = await h.api('POST', `/products/${product.body.id}/plans`, { code: 'pro', kind: 'perpetual' });
      const app = createApp({ engine: h.engine, publicBaseUrl: PUBLIC_BASE_URL, log: false });
      const server = await listen(app, { port: 0, handleSignals: false });
      const tally: Tally = { ok: [], closeHeaders: 0, refused: 0, resets: [] };
      const clients = Array.from({ length: CLIENTS }, () => client(server.url, h.apiKey, plan.body.id, tally));
      while (tally.ok.length < 100) await new Promise((resolve) => setTimeout(resolve, 10));
      await server.close();
      await Promise.all(clients);

      expect(tally.resets).toEqual([]);
      expect(tally.refused).toBe(CLIENTS); // each client learnt of the shutdown from a refused new connection
      expect(tally.closeHeaders).toBeGreaterThan(0); // the responses after close began said so
      for (const id of tally.ok.slice(-CLIENTS * 2)) expect((await h.api('GET', `/licenses/${id}`)).status).toBe(200);
    }, 60_000);
  }

  let dir = '';
  let child: ChildProcessWithoutNullStreams | null = null;
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('SIGTERM to svc-licensing serve: no request is reset, it exits 0, and exactly the answered creates are stored', async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-shutdown-'));
    const data = join(dir, 'data');
    const unlimited = { SVC_RATE_LIMIT_VENDOR: '1000000000', SVC_RATE_LIMIT_CLIENT_KEY: '1000000000', SVC_RATE_LIMIT_CLIENT_IP: '1000000000' };
    const started = await startServe(['--data', data, '--port', '0'], unlimited);
    child = started.child;
    const { apiKey } = JSON.parse(await readFile(join(data, 'initial-account.json'), 'utf8')) as { apiKey: string };
    const call = async (path: string, body: unknown) => {
      const res = await fetch(`${started.url}/v1${path}`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return (await res.json()) as { id: string };
    };
    const product = await call('/products', { name: 'P', keyPrefix: 'SHUT', graceDays: 0, offlineDays: 7 });
    const plan = await call(`/products/${product.id}/plans`, { code: 'pro', kind: 'perpetual' });
    const tally: Tally = { ok: [], closeHeaders: 0, refused: 0, resets: [] };
    const clients = Array.from({ length: CLIENTS }, () => client(started.url, apiKey, plan.id, tally));
    while (tally.ok.length < 100) await new Promise((resolve) => setTimeout(resolve, 10));
    child.kill('SIGTERM');
    await Promise.all(clients);
    expect(await exited(child)).toBe(0);

    expect(tally.resets).toEqual([]);
    expect(tally.refused).toBe(CLIENTS);
    expect(tally.closeHeaders).toBeGreaterThan(0);
    const { store } = await openFolderEngine(data);
    try {
      const stored = await store.transaction((tx) => tx.count('licenses', {}));
      expect(stored).toBe(tally.ok.length); // nothing written that its client was not told about
    } finally {
      await store.close();
    }
  }, 60_000);
});
