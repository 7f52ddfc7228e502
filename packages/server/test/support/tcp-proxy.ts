import { createServer, connect } from 'node:net';
import type { Server, Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server, for outage tests: `stop()` closes the
 * port and cuts every open connection (as a database going down does), `start()` brings it
 * back on the same port; `blackhole()` keeps accepting but forwards nothing (a hung network).
 */
export interface TcpProxy {
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
  blackhole(): Promise<void>;
}

export async function createTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;

  const listen = (forward: boolean) =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        sockets.add(client);
        client.on('close', () => sockets.delete(client));
        client.on('error', () => undefined);
        if (!forward) return;
        const upstream = connect(target.port, target.host);
        sockets.add(upstream);
        upstream.on('close', () => sockets.delete(upstream));
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
        client.pipe(upstream).pipe(client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as { port: number }).port;
        server = s;
        resolve();
      });
    });

  const stop = async () => {
    const s = server;
    server = null;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };

  await listen(true);
  return {
    get port() {
      return port;
    },
    start: () => listen(true),
    stop,
    async blackhole() {
      await stop();
      await listen(false);
    },
  };
}
