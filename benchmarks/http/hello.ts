// Reference server for the HTTP benchmark: one h3 route answering a small JSON object, served by
// the same Node listener as the licensing server, so the difference is the service's own work.
import { H3 } from 'h3';
import { listen } from '@svc-licensing/server';

const app = new H3().get('/hello', () => ({ hello: 'world' }));
const server = await listen(app, { port: 0, host: '127.0.0.1', handleSignals: true });
process.stdout.write(`${JSON.stringify({ msg: 'listening', url: server.url })}\n`);
