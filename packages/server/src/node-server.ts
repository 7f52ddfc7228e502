import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { H3 } from 'h3';
import { toNodeHandler } from 'h3/node';

/** Options of {@link listen}. */
export interface ListenOptions {
  /** 0 picks a free port. */
  port: number;
  host?: string;
  /** Close gracefully and exit on SIGTERM and SIGINT; true by default. */
  handleSignals?: boolean;
  /** How long in-flight requests may take to finish on close before connections are cut; 10 s by default. */
  shutdownTimeoutMs?: number;
}

/** A listening server. */
export interface RunningServer {
  /** `http://host:port`, with the port actually bound. */
  url: string;
  /** Stops accepting connections, lets requests in flight finish, then resolves. */
  close(): Promise<void>;
}

/**
 * Serves an app on Node's HTTP server. `close()` (also run on SIGTERM) is graceful: new
 * connections are refused, idle keep-alive connections closed, requests in flight finish.
 *
 * @example
 * const server = await listen(createApp({ engine, publicBaseUrl }), { port: 8080, host: '0.0.0.0' });
 * console.log(server.url);
 * await server.close();
 */
export async function listen(app: H3, options: ListenOptions): Promise<RunningServer> {
  const server: Server = createServer(toNodeHandler(app));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | null = null;
  // Once closing, a connection whose last response has gone out is closed instead of kept alive.
  server.on('request', (_req, res) => {
    res.once('finish', () => {
      if (closing !== null) setImmediate(() => server.closeIdleConnections());
    });
  });

  const close = () =>
    (closing ??= new Promise<void>((resolve, reject) => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      const timer = setTimeout(() => server.closeAllConnections(), options.shutdownTimeoutMs ?? 10_000);
      timer.unref();
      server.close((error) => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      });
      server.closeIdleConnections();
    }));

  const onSignal = () => {
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  if (options.handleSignals !== false) {
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }
  return { url: `http://${host}:${address.port}`, close };
}
