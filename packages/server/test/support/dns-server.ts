import { Packet, createServer } from 'dns2';

/**
 * A real DNS server on 127.0.0.1 (UDP and TCP on the same free port, so a truncated answer is
 * retried over TCP) answering TXT, A and AAAA queries from a zone the test fills: an unknown name
 * is NXDOMAIN, a known name without records of the type asked is an empty answer.
 */
export interface TestDnsServer {
  /** `127.0.0.1:<port>`, for a `Resolver`'s `setServers`. */
  address: string;
  port: number;
  /** Replaces the TXT records of `name` (each record as its character strings; one string is fine below 256 bytes). */
  setTxt(name: string, records: (string | string[])[]): void;
  /** Replaces the A and AAAA records of `name` (IPv4 and IPv6 addresses, mixed). */
  setAddresses(name: string, addresses: string[]): void;
  /** Removes every record of `name`. */
  remove(name: string): void;
  /** Names asked for, in order (lowercase, without the trailing dot). */
  queries: string[];
  close(): Promise<void>;
}

/** Splits a TXT value into character strings of at most 255 bytes, as zone files do. */
export function txtChunks(value: string): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < value.length; i += 255) chunks.push(value.slice(i, i + 255));
  return chunks.length > 0 ? chunks : [''];
}

interface UdpSocket {
  listen(port: number, address: string): Promise<void>;
  address(): { port: number };
}
interface TcpServer {
  once(event: 'error', listener: (error: Error) => void): void;
  on(event: 'connection', listener: (socket: { destroy(): void; once(event: 'close', listener: () => void): void }) => void): void;
  listen(port: number, host: string, ready: () => void): void;
}

export async function startDnsServer(): Promise<TestDnsServer> {
  const zone = new Map<string, string[][]>();
  const hosts = new Map<string, string[]>();
  const queries: string[] = [];
  const open = async () => {
    const server = createServer({
      udp: true,
      tcp: true,
      handle(request, send) {
        const response = Packet.createResponseFromRequest(request);
        for (const question of request.questions) {
          const name = question.name.toLowerCase().replace(/\.$/, '');
          queries.push(name);
          const records = zone.get(name);
          const addresses = hosts.get(name);
          if (records === undefined && addresses === undefined) {
            response.header.rcode = 3; // NXDOMAIN
            continue;
          }
          if (question.type === Packet.TYPE.A || question.type === Packet.TYPE.AAAA) {
            const v6 = question.type === Packet.TYPE.AAAA;
            for (const address of (addresses ?? []).filter((a) => a.includes(':') === v6)) {
              response.answers.push({ name: question.name, type: question.type, class: Packet.CLASS.IN, ttl: 1, address } as never);
            }
            continue;
          }
          if (question.type !== Packet.TYPE.TXT) continue;
          for (const data of records ?? []) {
            response.answers.push({ name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data } as never);
          }
        }
        send(response);
      },
    });
    // dns2 re-emits its sockets' errors on the server; a taken TCP port is handled below (another
    // port is tried), and without a listener here that re-emitted error would crash the test run.
    server.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EADDRINUSE') queueMicrotask(() => { throw error; });
    });
    // One port for both: UDP first on a free port, then TCP on the same number (another free port when taken).
    const inner = (server as unknown as { servers: { udp: UdpSocket; tcp: TcpServer } }).servers;
    await inner.udp.listen(0, '127.0.0.1');
    const port = inner.udp.address().port;
    const tcp = await new Promise<boolean>((resolve) => {
      inner.tcp.once('error', () => resolve(false));
      inner.tcp.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (tcp) {
      // Resolvers keep TCP connections open; closing must end them, or `close` waits for the client.
      const sockets = new Set<{ destroy(): void }>();
      inner.tcp.on('connection', (socket) => {
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
      });
      return { server, port, sockets };
    }
    (inner.udp as unknown as { close(): void }).close();
    return null;
  };
  let opened: Awaited<ReturnType<typeof open>> = null;
  for (let attempt = 0; opened === null; attempt++) {
    if (attempt === 20) throw new Error('no port free for both UDP and TCP');
    opened = await open();
  }
  const { server, port, sockets } = opened;
  let closing: Promise<void> | null = null;
  return {
    address: `127.0.0.1:${port}`,
    port,
    queries,
    setTxt(name, records) {
      zone.set(name.toLowerCase(), records.map((r) => (Array.isArray(r) ? r : txtChunks(r))));
    },
    setAddresses(name, addresses) {
      hosts.set(name.toLowerCase(), [...addresses]);
    },
    remove(name) {
      zone.delete(name.toLowerCase());
      hosts.delete(name.toLowerCase());
    },
    close: async () => {
      if (!closing) {
        for (const socket of sockets) socket.destroy();
        closing = server.close();
      }
      await closing;
    },
  };
}
