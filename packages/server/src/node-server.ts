import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Server as NetServer, type AddressInfo, type Socket } from 'node:net';
import type { H3 } from 'h3';
import { toNodeHandler } from 'h3/node';
import { settled } from './http/after-answer.js';

/** Options of {@link listen}. */
export interface ListenOptions {
  /** 0 picks a free port. */
  port: number;
  host?: string;
  /** Close gracefully and exit on SIGTERM and SIGINT; true by default. */
  handleSignals?: boolean;
  /** How long in-flight requests may take to finish on close before connections are cut; 10 s by default. */
  shutdownTimeoutMs?: number;
  /**
   * On close, how long an idle keep-alive connection is kept open so that a request its client
   * is sending right then is still answered (with `Connection: close`) instead of reset; 1 s by default.
   */
  idleGraceMs?: number;
}

/** A listening server. */
export interface RunningServer {
  /** `http://host:port`, with the port actually bound. */
  url: string;
  /** Stops accepting connections, lets requests in flight finish, then resolves. */
  close(): Promise<void>;
}

/** A bound port whose app comes later (`serve`): requests that arrive before it wait for it. */
export interface BoundServer extends RunningServer {
  /** The port actually bound. */
  port: number;
  /** Starts answering with `app`. */
  serve(app: H3): void;
}

/** The port is taken or not allowed: carries the port and host so callers can say which. */
export class ListenError extends Error {
  constructor(
    readonly code: string,
    readonly port: number,
    readonly host: string,
    cause: unknown,
  ) {
    const why = code === 'EADDRINUSE' ? 'is already in use' : code === 'EACCES' ? 'may not be used by this user' : `cannot be bound (${code})`;
    super(`port ${port} on ${host} ${why}`, { cause });
    this.name = 'ListenError';
  }
}

interface Connection {
  /** Requests received and not yet answered. */
  active: number;
  /** Closed by us (after the grace): a request still arriving is dropped, never run. */
  ending: boolean;
  timer: NodeJS.Timeout | null;
}

/**
 * Binds `options.port` before anything else happens, so a caller can fail on a taken port before
 * it writes anything; the app is attached with `serve`. `close()` is polite: it stops accepting
 * connections at once (a new connection is refused, so its client knows nothing was sent), every
 * response from then on carries `Connection: close`, and an idle keep-alive connection stays open
 * for `idleGraceMs` so that a request already on its way is answered rather than reset, then is
 * ended with a FIN. After `shutdownTimeoutMs` whatever is left is cut.
 */
export async function bindServer(options: ListenOptions): Promise<BoundServer> {
  const host = options.host ?? '127.0.0.1';
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  let served: H3 | null = null;
  let attached!: () => void;
  const ready = new Promise<void>((resolve) => (attached = resolve));
  let closing: Promise<void> | null = null;
  const idleGraceMs = options.idleGraceMs ?? 1000;
  const connections = new Map<Socket, Connection>();
  const inFlight = new Set<ServerResponse>();

  const endIdle = (socket: Socket, state: Connection) => {
    state.timer = null;
    if (state.active > 0 || socket.destroyed) return;
    state.ending = true;
    socket.end(); // FIN, not RST; the client closes its side
    setTimeout(() => socket.destroy(), 1000).unref();
  };
  /** Once closing, an idle connection gets its grace period, then is ended. */
  const whenIdle = (socket: Socket, state: Connection) => {
    if (closing === null || state.active > 0 || state.timer !== null || socket.destroyed) return;
    // setImmediate: a request that arrived while the event loop was busy is read (poll phase) before we end the socket.
    state.timer = setTimeout(() => setImmediate(() => endIdle(socket, state)), idleGraceMs);
    state.timer.unref();
  };

  const server: Server = createServer((req, res) => {
    const socket = req.socket;
    const state = connections.get(socket);
    if (state?.ending) {
      socket.destroy(); // arrived after our FIN: not run, so nothing was written for it
      return;
    }
    if (state) {
      state.active++;
      if (state.timer !== null) clearTimeout(state.timer);
      state.timer = null;
    }
    if (closing !== null) res.shouldKeepAlive = false; // Node then sends `Connection: close` and ends the socket
    inFlight.add(res);
    res.once('close', () => {
      inFlight.delete(res);
      if (!state) return;
      state.active--;
      whenIdle(socket, state);
    });
    if (handler) handler(req, res);
    else void ready.then(() => handler!(req, res));
  });
  server.on('connection', (socket: Socket) => {
    const state: Connection = { active: 0, ending: false, timer: null };
    connections.set(socket, state);
    socket.once('close', () => {
      if (state.timer !== null) clearTimeout(state.timer);
      connections.delete(socket);
    });
    whenIdle(socket, state);
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => reject(new ListenError(error.code ?? 'unknown', options.port, host, error));
    server.once('error', onError);
    server.listen(options.port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  const close = () => {
    if (closing !== null) return closing;
    closing = new Promise<void>((resolve, reject) => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      const timer = setTimeout(() => server.closeAllConnections(), options.shutdownTimeoutMs ?? 10_000);
      timer.unref();
      // Stop accepting, but not through http.Server's close(): that destroys idle keep-alive
      // connections at once, resetting a request a client may be sending on one right then.
      NetServer.prototype.close.call(server, (error?: Error) => {
        clearTimeout(timer);
        if (error) return reject(error);
        // Then the work answered requests started (link e-mails), within the same bound.
        if (served === null) return resolve();
        const cut = setTimeout(resolve, options.shutdownTimeoutMs ?? 10_000);
        cut.unref();
        void settled(served).then(() => {
          clearTimeout(cut);
          resolve();
        });
      });
    });
    // After `closing` is set, which whenIdle checks: idle connections now get their grace, then end.
    for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
    for (const [socket, state] of connections) whenIdle(socket, state);
    return closing;
  };

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
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    serve(app) {
      served = app;
      handler = toNodeHandler(app) as (req: IncomingMessage, res: ServerResponse) => void;
      attached();
    },
    close,
  };
}

/**
 * Serves an app on Node's HTTP server. `close()` (also run on SIGTERM) is graceful and polite:
 * new connections are refused, responses from then on carry `Connection: close`, idle keep-alive
 * connections get a short grace (a request already sent on one is answered, not reset) and are
 * then ended, requests in flight finish.
 *
 * @example
 * const server = await listen(createApp({ engine, publicBaseUrl }), { port: 8080, host: '0.0.0.0' });
 * console.log(server.url);
 * await server.close();
 */
export async function listen(app: H3, options: ListenOptions): Promise<RunningServer> {
  const bound = await bindServer(options);
  bound.serve(app);
  return { url: bound.url, close: bound.close };
}
