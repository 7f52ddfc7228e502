import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses a vendor's notification endpoint may be reached at: public unicast ones only.
 * Everything else (loopback, private, link-local, unique-local, CGNAT, multicast, broadcast,
 * unspecified, reserved and documentation ranges, cloud metadata addresses) is refused, so a vendor
 * cannot make the server post into the network it runs in. IPv4-mapped (`::ffff:a.b.c.d`) and
 * NAT64 (`64:ff9b::a.b.c.d`) addresses are judged by the IPv4 address they carry.
 */

/** Why an address is refused: ipaddr.js's range name, or `metadata` for a cloud metadata service. */
export type RefusedRange =
  | 'metadata'
  | 'loopback'
  | 'private'
  | 'linkLocal'
  | 'uniqueLocal'
  | 'carrierGradeNat'
  | 'multicast'
  | 'broadcast'
  | 'unspecified'
  | 'reserved'
  | (string & {});

/** The verdict on one address: public, or refused with the range it lies in. */
export type AddressVerdict = { public: true } | { public: false; range: RefusedRange };

/**
 * Cloud metadata and platform services. Most lie in ranges refused anyway (169.254/16, fd00::/8,
 * 100.64/10, 192.0.0/24); Azure's wire server 168.63.129.16 is a public address and is listed so it
 * is refused too.
 */
const METADATA = new Set([
  '169.254.169.254', // AWS, GCP, Azure, OpenStack, DigitalOcean
  '169.254.170.2', // AWS ECS task metadata
  '168.63.129.16', // Azure wire server
  '100.100.100.200', // Alibaba Cloud
  '192.0.0.192', // Oracle Cloud
  'fd00:ec2:0:0:0:0:0:254', // AWS over IPv6
]);

const DESCRIPTION: Record<string, string> = {
  metadata: 'a cloud metadata address',
  loopback: 'a loopback address',
  private: 'a private address',
  linkLocal: 'a link-local address',
  uniqueLocal: 'a unique-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  unspecified: 'an unspecified address',
};

/**
 * A human-readable name of a refused range, for error messages.
 *
 * @example
 * ```ts
 * describeRange('linkLocal'); // 'a link-local address'
 * ```
 */
export function describeRange(range: RefusedRange): string {
  return DESCRIPTION[range] ?? `a reserved address (${range})`;
}

/**
 * The address an IPv6 address stands for when it carries an IPv4 address the network routes to
 * (IPv4-mapped `::ffff:0:0/96` and NAT64 `64:ff9b::/96`); other addresses unchanged.
 *
 * @example
 * ```ts
 * effectiveAddress(ipaddr.parse('::ffff:7f00:1')).toString(); // '127.0.0.1'
 * ```
 */
export function effectiveAddress(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  if (address.kind() === 'ipv4') return address;
  const v6 = address as ipaddr.IPv6;
  const range = v6.range();
  if (range === 'ipv4Mapped' || range === 'rfc6052' || range === 'rfc6145') {
    const bytes = v6.toByteArray().slice(12);
    return ipaddr.fromByteArray(bytes);
  }
  return v6;
}

/**
 * Parses an IP address strictly (dotted-quad IPv4 or IPv6, optionally in brackets, no zone id);
 * null for anything else, including names and the short IPv4 forms `127.1` or `0x7f.1`.
 *
 * @example
 * ```ts
 * parseAddress('[::1]')?.kind(); // 'ipv6'
 * parseAddress('localhost');     // null
 * ```
 */
export function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare);
  if (!bare.includes('%') && ipaddr.IPv6.isValid(bare)) return ipaddr.IPv6.parse(bare);
  return null;
}

/**
 * Whether a notification may be sent to this address: only public unicast addresses pass.
 *
 * @example
 * ```ts
 * classifyAddress('169.254.169.254'); // { public: false, range: 'metadata' }
 * classifyAddress('::ffff:10.0.0.1'); // { public: false, range: 'private' }
 * classifyAddress('203.0.113.7');     // { public: false, range: 'reserved' } (documentation range)
 * ```
 */
export function classifyAddress(address: string | ipaddr.IPv4 | ipaddr.IPv6): AddressVerdict {
  const parsed = typeof address === 'string' ? parseAddress(address) : address;
  if (parsed === null) throw new TypeError(`expected an IP address, got ${JSON.stringify(address)}`);
  const effective = effectiveAddress(parsed);
  if (METADATA.has(effective.toNormalizedString())) return { public: false, range: 'metadata' };
  const range = effective.range();
  return range === 'unicast' ? { public: true } : { public: false, range };
}
