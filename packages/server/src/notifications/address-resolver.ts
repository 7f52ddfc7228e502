import { Resolver, lookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import type { AddressResolver, ResolvedAddress } from './endpoint-url.js';

/**
 * The resolver of endpoint hosts: the system's (`getaddrinfo`, so /etc/hosts counts, as it would
 * for any HTTP client on the machine), or given DNS servers.
 *
 * @example
 * ```ts
 * await systemResolver()('localhost'); // [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]
 * ```
 */
export function systemResolver(): AddressResolver {
  return async (hostname) => {
    const found = await lookup(hostname, { all: true, verbatim: true });
    return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
  };
}

/**
 * A resolver that asks these DNS servers (`host` or `host:port`, `[v6]:port`) for A and AAAA records,
 * with its own `Resolver` (the process-wide one is untouched).
 *
 * @example
 * ```ts
 * const resolve = dnsServerResolver(['127.0.0.1:5353']);
 * await resolve('hooks.vendor.test'); // [{ address: '127.0.0.1', family: 4 }]
 * ```
 */
export function dnsServerResolver(servers: readonly string[], timeoutMs = 3000): AddressResolver {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  resolver.setServers([...servers]);
  return async (hostname) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses: ResolvedAddress[] = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
    ];
    if (addresses.length > 0) return addresses;
    // Neither family answered: report the failure that says more than "no such record".
    const failures = [v4, v6].flatMap((r) => (r.status === 'rejected' ? [r.reason as NodeJS.ErrnoException] : []));
    throw failures.find((e) => e.code !== 'ENODATA' && e.code !== 'ENOTFOUND') ?? failures[0] ?? Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
  };
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for `http.request`/`net.connect` that answers only with addresses already checked, so
 * the connection goes where the check looked, whatever DNS says a moment later (rebinding). It
 * answers for `hostname` only and fails for any other name.
 *
 * @example
 * ```ts
 * https.request(url, { lookup: pinnedLookup('hooks.example.com', [{ address: '93.184.215.14', family: 4 }]) });
 * ```
 */
export function pinnedLookup(hostname: string, addresses: readonly ResolvedAddress[]) {
  return (name: string, options: LookupOptions | number | LookupCallback, callback?: LookupCallback): void => {
    const done = (typeof options === 'function' ? options : callback) as LookupCallback;
    const opts: LookupOptions = typeof options === 'object' ? options : typeof options === 'number' ? { family: options } : {};
    const family = opts.family === 4 || opts.family === 'IPv4' ? 4 : opts.family === 6 || opts.family === 'IPv6' ? 6 : 0;
    const usable = addresses.filter((a) => family === 0 || a.family === family);
    if (name.toLowerCase() !== hostname.toLowerCase() || usable.length === 0) {
      const error: NodeJS.ErrnoException = Object.assign(new Error(`no checked address for ${name}`), { code: 'ENOTFOUND' });
      process.nextTick(done, error, opts.all ? [] : '', 0);
      return;
    }
    const first = usable[0] as ResolvedAddress;
    if (opts.all) process.nextTick(done, null, usable.map((a) => ({ address: a.address, family: a.family })));
    else process.nextTick(done, null, first.address, first.family);
  };
}
