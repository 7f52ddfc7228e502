// The vendor's backend for the notification benchmarks, in a process of its own (the other core):
// an HTTP server on 127.0.0.1 that verifies every delivery with the `standardwebhooks` package (not
// our code) under the secrets it was given, answers 204 when one verifies and 400 otherwise, and
// counts. Control: `POST /_secrets` (a JSON list, replaces them), `GET /_count`, `POST /_reset`.
// Prints `{"msg":"listening","url":...}` on stdout once listening.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

let hooks: Webhook[] = [];
const seen = new Set<string>();
const count = { verified: 0, refused: 0, duplicates: 0, types: {} as Record<string, number> };

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    if (req.url === '/_secrets') {
      hooks = (JSON.parse(body) as string[]).map((s) => new Webhook(s));
      return void res.writeHead(204).end();
    }
    if (req.url === '/_count') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...count, unique: seen.size }));
    if (req.url === '/_reset') {
      seen.clear();
      Object.assign(count, { verified: 0, refused: 0, duplicates: 0, types: {} });
      return void res.writeHead(204).end();
    }
    const headers = { 'webhook-id': String(req.headers['webhook-id'] ?? ''), 'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''), 'webhook-signature': String(req.headers['webhook-signature'] ?? '') };
    for (const hook of hooks) {
      try {
        const message = hook.verify(body, headers) as { type: string };
        count.verified++;
        count.types[message.type] = (count.types[message.type] ?? 0) + 1;
        if (seen.has(headers['webhook-id'])) count.duplicates++;
        seen.add(headers['webhook-id']);
        return void res.writeHead(204).end();
      } catch {
        // not this secret
      }
    }
    count.refused++;
    res.writeHead(400).end('signature not verified');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
