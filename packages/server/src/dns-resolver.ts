import { Resolver } from 'node:dns/promises';
import type { DnsResolver } from '@svc-licensing/license-engine';

/** Options of {@link createDnsResolver}. */
export interface DnsResolverOptions {
  /** DNS servers to ask, `host` or `host:port` (`[v6]:port`); default: the system's. */
  servers?: readonly string[];
  /** Per-attempt timeout in milliseconds (default 3000), two attempts per server. */
  timeoutMs?: number;
}

/** The answers that mean "no such record" rather than "the lookup failed". */
const ABSENT = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * The engine's DNS port over `node:dns`: a `Resolver` of its own (so the servers it asks are
 * configurable without touching the process-wide resolver). A name without TXT records resolves
 * to `[]`; timeouts, refusals and server failures reject.
 *
 * @example
 * ```ts
 * const dns = createDnsResolver({ servers: ['127.0.0.1:5353'] });
 * await dns.resolveTxt('_svc-licensing.mail.example.com'); // [['svc-verify=...']]
 * ```
 */
export function createDnsResolver(options: DnsResolverOptions = {}): DnsResolver {
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 3000, tries: 2 });
  if (options.servers && options.servers.length > 0) resolver.setServers([...options.servers]);
  return {
    async resolveTxt(name) {
      try {
        return await resolver.resolveTxt(name);
      } catch (error) {
        if (ABSENT.has((error as { code?: string }).code ?? '')) return [];
        throw error;
      }
    },
  };
}
