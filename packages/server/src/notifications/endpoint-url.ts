import { classifyAddress, describeRange, parseAddress } from './address-policy.js';
import { allowsAddress, allowsHost } from './allowance.js';
import type { NotifyAllowance } from './allowance.js';

/**
 * The two safety rules of a vendor's notification endpoint, as values: the URL's form (checked at
 * creation and again at send) and its addresses (checked at send, after DNS). The operator's
 * allowance lifts both for what it names.
 */

/** Why a URL is refused. */
export type UrlRefusalCode = 'invalid_url' | 'https_required' | 'credentials_in_url' | 'private_address';

/** A refused URL: a stable code and a message fit for the API's `400` and for the log. */
export interface UrlRefusal {
  code: UrlRefusalCode;
  message: string;
}

/** At most this many characters in an endpoint URL. */
export const MAX_URL_LENGTH = 2048;

/** A URL that passed {@link checkEndpointUrl}. */
export interface CheckedUrl {
  url: URL;
  /** The host without IPv6 brackets. */
  host: string;
  /** The host is an IP address, not a name: no DNS, and the address was checked already. */
  literal: boolean;
  /** The allowance names the host (its name, or the range its address lies in). */
  allowed: boolean;
}

/**
 * Checks an endpoint URL without DNS: an absolute `https` URL (plain `http` only for a host the
 * allowance names), no user name or password, and, when the host is an IP address, a public one
 * (or one the allowance covers). Names are resolved and checked at send time by
 * {@link resolveEndpointAddresses}.
 *
 * @example
 * ```ts
 * checkEndpointUrl('http://127.0.0.1/hook', NO_ALLOWANCE);
 * // { ok: false, refusal: { code: 'https_required', message: 'endpoint URLs must use https: ...' } }
 * checkEndpointUrl('https://hooks.example.com/svc', NO_ALLOWANCE).ok; // true
 * ```
 */
export function checkEndpointUrl(text: string, allowance: NotifyAllowance): { ok: true; checked: CheckedUrl } | { ok: false; refusal: UrlRefusal } {
  const refuse = (code: UrlRefusalCode, message: string) => ({ ok: false as const, refusal: { code, message } });
  if (text.length > MAX_URL_LENGTH) return refuse('invalid_url', `the URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse('invalid_url', 'not an absolute URL (https://hooks.example.com/...)');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return refuse('invalid_url', `unsupported scheme ${url.protocol.slice(0, 20)} (use https)`);
  if (url.hostname === '') return refuse('invalid_url', 'the URL has no host');
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const allowed = allowsHost(allowance, host);
  if (url.protocol === 'http:' && !allowed) {
    return refuse('https_required', `endpoint URLs must use https: ${url.host} is not in the operator's --notify-allow list`);
  }
  if (url.username !== '' || url.password !== '') {
    return refuse('credentials_in_url', 'the URL must not hold a user name or password; check the webhook signature instead');
  }
  const address = parseAddress(host);
  if (address !== null && !allowed) {
    const verdict = classifyAddress(address);
    if (!verdict.public) return refuse('private_address', `${host} is ${describeRange(verdict.range)}, which notifications are never sent to`);
  }
  return { ok: true, checked: { url, host, literal: address !== null, allowed } };
}

/** One resolved address, as `dns.lookup` gives it. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses; rejects when it cannot (the attempt then fails as `dns`). */
export type AddressResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The addresses to connect to: every one was checked. */
export type AddressCheck = { ok: true; addresses: ResolvedAddress[] } | { ok: false; refusal: UrlRefusal };

/**
 * Resolves a checked URL's host and checks every address it resolves to; a name with one refused
 * address is refused whole (a name that mixes public and private addresses is not a vendor's
 * endpoint). The caller must connect only to the addresses returned (see `pinnedLookup`), so a DNS
 * answer that changes between this check and the connection (rebinding) is never used.
 *
 * @example
 * ```ts
 * const checked = checkEndpointUrl('https://hooks.example.com/svc', allowance);
 * if (checked.ok) await resolveEndpointAddresses(checked.checked, allowance, systemResolver());
 * // { ok: true, addresses: [{ address: '93.184.215.14', family: 4 }] }
 * ```
 */
export async function resolveEndpointAddresses(checked: CheckedUrl, allowance: NotifyAllowance, resolve: AddressResolver): Promise<AddressCheck> {
  if (checked.literal) {
    return { ok: true, addresses: [{ address: checked.host, family: checked.host.includes(':') ? 6 : 4 }] };
  }
  const addresses = await resolve(checked.host);
  if (addresses.length === 0) throw Object.assign(new Error(`${checked.host} has no address`), { code: 'ENOTFOUND' });
  if (checked.allowed) return { ok: true, addresses };
  for (const { address } of addresses) {
    const parsed = parseAddress(address);
    if (parsed !== null && allowsAddress(allowance, parsed)) continue;
    const verdict = parsed === null ? { public: false as const, range: 'unparsable' } : classifyAddress(parsed);
    if (!verdict.public) {
      return {
        ok: false,
        refusal: { code: 'private_address', message: `${checked.host} resolves to ${address}, ${describeRange(verdict.range)}, which notifications are never sent to` },
      };
    }
  }
  return { ok: true, addresses };
}
