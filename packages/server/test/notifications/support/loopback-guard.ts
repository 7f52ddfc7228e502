import dns from 'node:dns';
import net from 'node:net';

/**
 * A safety net for the SSRF tests: while installed, every outgoing TCP connection of this process
 * is recorded, and one to an address outside loopback fails before a packet leaves (the tests name
 * 10.x and 169.254.169.254, which this machine must never be made to contact, even by a bug).
 */
export interface LoopbackGuard {
  /** Hosts of the connections started (names as given, addresses as looked up). */
  connections: string[];
  /** Connections that were stopped because they left loopback. */
  blocked: string[];
  restore(): void;
}

function isLoopback(address: string): boolean {
  return /^127\./.test(address) || address === '::1' || /^::ffff:127\./i.test(address);
}

type Lookup = (host: string, options: object, callback: (...args: unknown[]) => void) => void;

export function installLoopbackGuard(): LoopbackGuard {
  const original = net.Socket.prototype.connect;
  const guard: LoopbackGuard = { connections: [], blocked: [], restore: () => void (net.Socket.prototype.connect = original) };
  net.Socket.prototype.connect = function guarded(this: net.Socket, ...args: unknown[]) {
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    const options = (typeof first === 'object' && first !== null ? first : { port: first, host: args[1] }) as { host?: string; port?: unknown; lookup?: Lookup };
    // A TCP connection has a port (an HTTP agent's options also carry the request's `path`, so that says nothing).
    if (options.port !== undefined && options.port !== null) {
      const host = (options.host ?? 'localhost').replace(/^\[|\]$/g, '');
      guard.connections.push(host);
      if (net.isIP(host) !== 0 && !isLoopback(host)) {
        guard.blocked.push(host);
        throw new Error(`loopback guard: a connection to ${host} was attempted`);
      }
      if (net.isIP(host) === 0) {
        const lookup = options.lookup ?? (dns.lookup as unknown as Lookup);
        options.lookup = (name, opts, callback) =>
          lookup(name, opts, (error: unknown, address: unknown, family: unknown) => {
            const found = Array.isArray(address) ? (address as { address: string }[]).map((a) => a.address) : [String(address)];
            const outside = error ? [] : found.filter((a) => !isLoopback(a));
            if (outside.length > 0) {
              guard.blocked.push(...outside);
              callback(new Error(`loopback guard: ${name} looked up to ${outside.join(', ')}`));
            } else callback(error, address, family);
          });
      }
    }
    return original.apply(this, args as never);
  } as typeof original;
  return guard;
}
