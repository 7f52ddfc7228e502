import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A stand-in for provider_a's customer API on a local port, answering from a table the test fills. */
export interface FakeProviderAApi {
  baseUrl: string;
  /** Customers by ID, each readable only with `apiKey`. */
  customers: Map<string, { apiKey: string; email: string; name: string | null }>;
  /** Every request received: method, path and authorization header. */
  requests: { method: string; path: string; authorization: string | undefined }[];
  /** When set, requests are answered with this status (or left hanging with `'hang'`). */
  mode: { status: number } | 'hang' | 'normal';
  close(): Promise<void>;
}

export async function startProviderAApi(): Promise<FakeProviderAApi> {
  const hanging: ServerResponse[] = [];
  const api: FakeProviderAApi = {
    baseUrl: '',
    customers: new Map(),
    requests: [],
    mode: 'normal',
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '';
    api.requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization });
    if (api.mode === 'hang') {
      hanging.push(res);
      return;
    }
    if (api.mode !== 'normal') {
      res.writeHead(api.mode.status, { 'content-type': 'application/json' }).end('{"error":{}}');
      return;
    }
    const match = /^\/customers\/([^/?]+)$/.exec(path);
    const customer = match ? api.customers.get(decodeURIComponent(match[1]!)) : undefined;
    if (!customer) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"type":"request_error","code":"not_found"}}');
      return;
    }
    if (req.headers.authorization !== `Bearer ${customer.apiKey}`) {
      res.writeHead(403, { 'content-type': 'application/json' }).end('{"error":{"code":"forbidden"}}');
      return;
    }
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ data: { id: decodeURIComponent(match![1]!), email: customer.email, name: customer.name, status: 'active' }, meta: {} }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return api;
}
