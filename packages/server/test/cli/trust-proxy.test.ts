import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { exited, startServe } from '../support/cli-process.js';

// `serve --trust-proxy` (or SVC_TRUST_PROXY) reaches the app: with a limit of 1 client call per
// hour and IP, two callers behind a proxy get a call each; without it they share the proxy's bucket.
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill('SIGTERM');
    await exited(child);
  }
}, 30_000);

async function twoCallers(args: string[], env: Record<string, string> = {}): Promise<number[]> {
  const { child, url } = await startServe(['--database', 'memory:', '--port', '0', '--rate-limit-client-ip', '1', ...args], env);
  children.push(child);
  const statuses: number[] = [];
  for (const forwarded of ['203.0.113.1', '203.0.113.2']) {
    const res = await fetch(`${url}/v1/licenses/validate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': forwarded },
      body: JSON.stringify({ product: 'prd_none', key: 'ACME-AAAAA-BBBBB-CCCCC-DDDDD', fingerprint: 'a'.repeat(64) }),
    });
    await res.text();
    statuses.push(res.status);
  }
  return statuses;
}

it('counts client calls by X-Forwarded-For only with --trust-proxy or SVC_TRUST_PROXY', async () => {
  expect(await twoCallers([])).toEqual([404, 429]);
  expect(await twoCallers(['--trust-proxy'])).toEqual([404, 404]);
  expect(await twoCallers([], { SVC_TRUST_PROXY: 'true' })).toEqual([404, 404]);
}, 60_000);
