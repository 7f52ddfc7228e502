import { getRequestIP, type H3Event } from 'h3';

/**
 * The address a client API call is counted against. Without `trustProxy`: the TCP peer, and
 * `X-Forwarded-For` is ignored (a client could write anything there). With it (`--trust-proxy`,
 * only behind a reverse proxy you run): the LAST `X-Forwarded-For` entry, the address your proxy
 * saw and appended or wrote; entries before it came from the client and are ignored. Without the
 * header, the TCP peer.
 *
 * @example
 * clientAddress(event, true); // '203.0.113.7' for `X-Forwarded-For: 10.9.9.9, 203.0.113.7`
 */
export function clientAddress(event: H3Event, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = event.req.headers.get('x-forwarded-for');
    const last = forwarded?.slice(forwarded.lastIndexOf(',') + 1).trim();
    if (last) return last;
  }
  return getRequestIP(event) ?? 'unknown';
}
