import { connect, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';

/** One request a client sent to the database: a command packet, and so one round trip. */
export interface WireRequest {
  /** Which connection sent it, numbered from 1 in the order they connected. */
  connection: number;
  /** `query` (text, maybe several statements), `prepare`, `execute` (a prepared statement) or the command byte. */
  kind: 'query' | 'prepare' | 'execute' | `command 0x${string}`;
  /** The SQL text; for `execute`, the text the statement was prepared from. */
  sql: string;
}

/**
 * A TCP proxy on 127.0.0.1 in front of a MySQL/MariaDB server that reads the client protocol as it
 * passes: every command packet (sequence id 0 after the handshake) is one request. The answer to a
 * `COM_STMT_PREPARE` names the statement id, so an `execute` is reported with its SQL.
 */
export interface WireRecorder {
  port: number;
  /** The requests since the last `clear()`, in the order they were sent. */
  requests(): WireRequest[];
  clear(): void;
  close(): Promise<void>;
}

const COM_QUIT = 0x01;
const COM_QUERY = 0x03;
const COM_STMT_PREPARE = 0x16;
const COM_STMT_EXECUTE = 0x17;
const COM_STMT_CLOSE = 0x19;

/** Calls `onPacket(sequence, payload)` for every whole protocol packet of a byte stream. */
function packets(onPacket: (sequence: number, payload: Buffer) => void): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4) {
      const length = pending.readUIntLE(0, 3);
      if (pending.length < 4 + length) return;
      onPacket(pending[3]!, pending.subarray(4, 4 + length));
      pending = pending.subarray(4 + length);
    }
  };
}

export async function createWireRecorder(target: { host: string; port: number }): Promise<WireRecorder> {
  let log: WireRequest[] = [];
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const connection = ++connections;
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    const statements = new Map<number, string>();
    /** The request whose answer has not begun yet (commands go one at a time on a connection). */
    let awaiting: WireRequest | null = null;
    client.on(
      'data',
      packets((sequence, payload) => {
        if (sequence !== 0 || payload.length === 0) return;
        const command = payload[0]!;
        if (command === COM_QUIT || command === COM_STMT_CLOSE) return; // no answer: not a round trip
        const text = () => payload.subarray(1).toString('utf8');
        const request: WireRequest =
          command === COM_QUERY
            ? { connection, kind: 'query', sql: text() }
            : command === COM_STMT_PREPARE
              ? { connection, kind: 'prepare', sql: text() }
              : command === COM_STMT_EXECUTE
                ? { connection, kind: 'execute', sql: statements.get(payload.readUInt32LE(1)) ?? '?' }
                : { connection, kind: `command 0x${command.toString(16)}`, sql: '' };
        log.push(request);
        awaiting = request;
      }),
    );
    upstream.on(
      'data',
      packets((_sequence, payload) => {
        const request = awaiting;
        awaiting = null;
        // STMT_PREPARE_OK: 0x00, then the statement id.
        if (request?.kind === 'prepare' && payload[0] === 0x00) statements.set(payload.readUInt32LE(1), request.sql);
      }),
    );
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    requests: () => [...log],
    clear() {
      log = [];
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
