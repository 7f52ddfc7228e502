// Revoke load for http/ab.ts: POST /v1/licenses/{id}/revoke with the API key, each request a
// different license prepared beforehand, `connections` requests in flight until the given IDs are
// used up. Its own driver rather than autocannon: autocannon's `amount` mode ends on its 1 s tick,
// which for a few hundred revokes would count mostly idle time as the run.
import type { Agent } from 'node:http';
import { request } from 'node:http';
import { loadAgent } from './webhooks.js';

export interface RevokeResult {
  total: number;
  /** Milliseconds, one decimal. */
  p50: number;
  p99: number;
  /** Answers other than 200, plus socket errors (by their code, e.g. `ECONNRESET`): must be 0 for a valid run. */
  failures: number;
  failureKinds: Record<string, number>;
}

/** The status of the answer, or the socket error's code when there was none (`ECONNRESET`). */
function post(agent: Agent, url: URL, path: string, apiKey: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request({ agent, host: url.hostname, port: url.port, method: 'POST', path, headers: { authorization: `Bearer ${apiKey}`, 'content-length': 0 } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

/** Revokes every license of `ids` against `url`, `connections` at a time. */
export async function revokeAll(url: string, apiKey: string, ids: readonly string[], connections: number): Promise<RevokeResult> {
  // loadAgent: free sockets dropped on the server's keep-alive hint, so none is reused as the server closes it (reset, no answer).
  const agent = loadAgent(connections);
  const target = new URL(url);
  const latencies: number[] = [];
  const failureKinds: Record<string, number> = {};
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: Math.min(connections, ids.length) }, async () => {
        while (next < ids.length) {
          const id = ids[next++]!;
          const started = performance.now();
          const status = await post(agent, target, `/v1/licenses/${id}/revoke`, apiKey);
          latencies.push(performance.now() - started);
          if (status !== 200) failureKinds[String(status)] = (failureKinds[String(status)] ?? 0) + 1;
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  latencies.sort((x, y) => x - y);
  const ms = (x: number) => Math.round(x * 10) / 10;
  const failures = Object.values(failureKinds).reduce((a, b) => a + b, 0);
  return { total: ids.length, p50: ms(percentile(latencies, 50)), p99: ms(percentile(latencies, 99)), failures, failureKinds };
}
