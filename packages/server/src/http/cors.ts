/**
 * CORS of the client API: open to every origin (the caller is an application on a customer
 * machine, possibly a web view), no credentials. The vendor API sends no CORS headers:
 * its secret key must never be used from a browser.
 */
export const CLIENT_CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset',
};

/** Extra headers of a preflight (`OPTIONS`) answer. */
export const CLIENT_PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  ...CLIENT_CORS_HEADERS,
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'Content-Type',
  'access-control-max-age': '86400',
};

/** Preflight of the client API's GET (the revocation list), which a page may revalidate with `If-None-Match`. */
export const CLIENT_GET_PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  ...CLIENT_PREFLIGHT_HEADERS,
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'If-None-Match',
};
