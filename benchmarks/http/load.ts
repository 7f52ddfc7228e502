// Drives load with autocannon: one autocannon instance per target URL, run at the same time
// (connections split evenly), results added up.
import autocannon from 'autocannon';

export interface LoadSpec {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  /** A new body for each request (POST), e.g. rotating over licenses. */
  body?: () => string;
  /** Headers of each request added to `headers`, e.g. its own X-Forwarded-For address. */
  headersFor?: () => Record<string, string>;
  /** Told each answer's status and body (autocannon then keeps the bodies), e.g. to count what the answers say. */
  onResponse?: (status: number, body: string) => void;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Non-2xx answers plus socket errors and timeouts: must be 0 for a valid run. */
  failures: number;
  total: number;
}

export async function load(urls: string[], spec: LoadSpec, options: { connections: number; seconds: number }): Promise<LoadResult> {
  const runs = await Promise.all(
    urls.map((url) =>
      autocannon({
        url,
        connections: Math.max(1, Math.round(options.connections / urls.length)),
        duration: options.seconds,
        requests: [
          {
            method: spec.method,
            path: spec.path,
            headers: { ...(spec.body ? { 'content-type': 'application/json' } : {}), ...spec.headers },
            ...(spec.body || spec.headersFor
              ? {
                  setupRequest: (req: Record<string, unknown>) => ({
                    ...req,
                    ...(spec.body ? { body: spec.body() } : {}),
                    ...(spec.headersFor ? { headers: { ...(req['headers'] as Record<string, string>), ...spec.headersFor() } } : {}),
                  }),
                }
              : {}),
            ...(spec.onResponse ? { onResponse: (status: number, body: string) => spec.onResponse!(status, body) } : {}),
          },
        ],
      }),
    ),
  );
  const total = runs.reduce((n, r) => n + r.requests.total, 0);
  return {
    requestsPerSecond: Math.round(runs.reduce((n, r) => n + r.requests.average, 0)),
    // Each instance measured half the traffic; the worse of the two is reported.
    p50: Math.max(...runs.map((r) => r.latency.p50)),
    p99: Math.max(...runs.map((r) => r.latency.p99)),
    failures: runs.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0),
    total,
  };
}
