import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';
import { effectiveAddress, parseAddress } from './address-policy.js';

/**
 * The operator's allowance (`--notify-allow`, `SVC_NOTIFY_ALLOW`): hosts, addresses and CIDR ranges
 * for which both safety rules are lifted, so a self-hosted vendor may post to an internal service,
 * over plain http if need be. A host name is matched exactly (case-insensitive, no wildcard); an
 * address or range allows a URL naming that address and any name that resolves into it.
 */
export interface NotifyAllowance {
  /** Host names, lowercase ASCII (IDNs in punycode), without a trailing dot. */
  readonly hosts: ReadonlySet<string>;
  /** Address ranges (a single address is a /32 or /128). */
  readonly ranges: readonly (readonly [ipaddr.IPv4 | ipaddr.IPv6, number])[];
  /** The entries as given, for messages. */
  readonly entries: readonly string[];
}

/**
 * The allowance that allows nothing: the default.
 *
 * @example
 * ```ts
 * allowsAddress(NO_ALLOWANCE, '10.0.0.1'); // false
 * ```
 */
export const NO_ALLOWANCE: NotifyAllowance = Object.freeze({ hosts: new Set<string>(), ranges: [], entries: [] });

/** The outcome of {@link parseNotifyAllowance}: the allowance, or the first entry that is not one. */
export type AllowanceParse = { ok: true; allowance: NotifyAllowance } | { ok: false; entry: string; message: string };

function normalizeHost(text: string): string | null {
  const host = domainToASCII(text.replace(/\.$/, '')).toLowerCase();
  if (host === '' || host.length > 253) return null;
  const label = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
  return host.split('.').every((part) => label.test(part)) ? host : null;
}

function parseRange(entry: string): readonly [ipaddr.IPv4 | ipaddr.IPv6, number] | null {
  const slash = entry.indexOf('/');
  const address = parseAddress(slash === -1 ? entry : entry.slice(0, slash));
  if (address === null) return null;
  const max = address.kind() === 'ipv4' ? 32 : 128;
  let bits = max;
  if (slash !== -1) {
    const text = entry.slice(slash + 1);
    if (!/^\d{1,3}$/.test(text) || Number(text) > max) return null;
    bits = Number(text);
  }
  // An IPv4-mapped entry allows the IPv4 addresses it stands for.
  const effective = effectiveAddress(address);
  if (effective.kind() === 'ipv4' && address.kind() === 'ipv6') return [effective, Math.max(0, bits - 96)];
  return [address, bits];
}

/**
 * Parses the allowance's entries; each may itself hold several, comma-separated.
 *
 * @example
 * ```ts
 * const parsed = parseNotifyAllowance(['hooks.internal, 10.0.0.0/8', '::1']);
 * if (parsed.ok) allowsHost(parsed.allowance, 'hooks.internal'); // true
 * parseNotifyAllowance(['10.0.0.0/33']); // { ok: false, entry: '10.0.0.0/33', message: '...' }
 * ```
 */
export function parseNotifyAllowance(values: readonly string[]): AllowanceParse {
  const hosts = new Set<string>();
  const ranges: (readonly [ipaddr.IPv4 | ipaddr.IPv6, number])[] = [];
  const entries: string[] = [];
  for (const entry of values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '')) {
    if (entry.includes('/') && /^[a-z][a-z0-9+.-]*:\/\//i.test(entry)) {
      return { ok: false, entry, message: `a host name, IP address or CIDR range, not a URL: ${JSON.stringify(entry)}` };
    }
    const looksNumeric = entry.includes('/') || entry.includes(':') || /^[\d.]+$/.test(entry) || entry.startsWith('[');
    if (looksNumeric) {
      const range = parseRange(entry);
      if (range === null) return { ok: false, entry, message: `not an IP address or CIDR range (10.0.0.0/8, fd00::/8, 192.168.1.20): ${JSON.stringify(entry)}` };
      ranges.push(range);
    } else {
      const host = normalizeHost(entry);
      if (host === null) return { ok: false, entry, message: `not a host name, IP address or CIDR range: ${JSON.stringify(entry)}` };
      hosts.add(host);
    }
    entries.push(entry);
  }
  return { ok: true, allowance: Object.freeze({ hosts, ranges, entries }) };
}

/**
 * Whether the allowance covers this address (after mapping IPv4-mapped and NAT64 addresses to IPv4).
 *
 * @example
 * ```ts
 * allowsAddress(allowance, '::ffff:10.1.2.3'); // true with 10.0.0.0/8 allowed
 * ```
 */
export function allowsAddress(allowance: NotifyAllowance, address: string | ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (allowance.ranges.length === 0) return false;
  const parsed = typeof address === 'string' ? parseAddress(address) : address;
  if (parsed === null) return false;
  const effective = effectiveAddress(parsed);
  return allowance.ranges.some(([base, bits]) => base.kind() === effective.kind() && effective.match(base, bits));
}

/**
 * Whether the allowance names a URL's host: the host name itself, or an address literal it covers.
 * `host` is a URL's `hostname` (IPv6 in brackets is fine).
 *
 * @example
 * ```ts
 * allowsHost(allowance, 'hooks.internal'); // true when 'hooks.internal' was allowed
 * allowsHost(allowance, '[::1]');          // true when '::1' or '::1/128' was allowed
 * ```
 */
export function allowsHost(allowance: NotifyAllowance, host: string): boolean {
  const address = parseAddress(host);
  if (address !== null) return allowsAddress(allowance, address);
  const name = normalizeHost(host);
  return name !== null && allowance.hosts.has(name);
}
