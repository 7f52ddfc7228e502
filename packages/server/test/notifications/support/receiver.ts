import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { TestCertificate } from './tls-certificate.js';

/** One request the receiver got, with the secrets the `standardwebhooks` package verified it with. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The receiver's secrets under which `new Webhook(secret).verify(body, headers)` succeeded. */
  verifiedWith: string[];
  /** What `verify` returned (the parsed body) under the first secret that verified; null when none. */
  payload: unknown;
}

/** How the receiver answers a request (after recording and verifying it). */
export type Handler = (request: ReceivedRequest, response: ServerResponse) => void | Promise<void>;

/**
 * A real vendor backend over HTTPS: verifies every delivery with the `standardwebhooks` npm
 * package (not our code) and answers as the test tells it (204 by default).
 */
export interface Receiver {
  port: number;
  host: string;
  /** `https://<host>:<port><path>` (`http://` for a plain receiver); `host` defaults to the address it listens on. */
  url(path?: string, host?: string): string;
  received: ReceivedRequest[];
  /** Secrets a delivery is verified with (each on its own). */
  secrets: string[];
  handle: Handler;
  /** Requests being answered now, and the most at once. */
  inFlight: number;
  maxInFlight: number;
  /** TCP connections accepted. */
  connections: number;
  close(): Promise<void>;
}

function verify(secrets: readonly string[], body: string, headers: IncomingHttpHeaders): { verifiedWith: string[]; payload: unknown } {
  const verifiedWith: string[] = [];
  let payload: unknown = null;
  const flat = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
  for (const secret of secrets) {
    try {
      const parsed = new Webhook(secret).verify(body, flat);
      if (verifiedWith.length === 0) payload = parsed;
      verifiedWith.push(secret);
    } catch {
      // not signed with this secret (or outside the timestamp tolerance)
    }
  }
  return { verifiedWith, payload };
}

/** Starts a receiver over HTTPS with `certificate`, or over plain HTTP when it is null. */
export async function startReceiver(certificate: TestCertificate | null, options: { host?: string; secrets?: string[] } = {}): Promise<Receiver> {
  const host = options.host ?? '127.0.0.1';
  const state = {
    received: [] as ReceivedRequest[],
    secrets: options.secrets ?? [],
    handle: ((_request, response) => void response.writeHead(204).end()) as Handler,
    inFlight: 0,
    maxInFlight: 0,
    connections: 0,
  };
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    res.once('close', () => state.inFlight--);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const request: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, ...verify(state.secrets, body, req.headers) };
      state.received.push(request);
      void Promise.resolve(state.handle(request, res)).catch((error: unknown) => res.destroy(error as Error));
    });
  };
  const server = certificate === null ? createHttpServer(listener) : createServer({ cert: certificate.cert, key: certificate.key }, listener);
  server.on('connection', () => state.connections++);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const receiver = Object.assign(state, {
    port,
    host,
    url: (path = '/hooks/svc', name = host.includes(':') ? `[${host}]` : host) => `${certificate === null ? 'http' : 'https'}://${name}:${port}${path}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
  return receiver;
}
