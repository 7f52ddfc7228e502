import type { H3 } from 'h3';
import { ApiError } from './errors.js';
import { toRouterPath, type RouteDef } from './route.js';

/**
 * The `Allow` value of each known path: its routes' methods, `HEAD` where `GET` is (`createApp`
 * mounts each GET route's handler for HEAD too, as h3 strips the body),
 * and `OPTIONS` where `preflight` says a CORS preflight is answered.
 */
export function allowedMethods(routes: readonly RouteDef[], preflight: ReadonlySet<string>): Map<string, string> {
  const byPath = new Map<string, Set<string>>();
  for (const route of routes) {
    const methods = byPath.get(route.path) ?? new Set<string>();
    methods.add(route.method);
    if (route.method === 'GET') methods.add('HEAD');
    if (preflight.has(route.path)) methods.add('OPTIONS');
    byPath.set(route.path, methods);
  }
  return new Map([...byPath].map(([path, methods]) => [path, [...methods].join(', ')]));
}

/**
 * Answers a request on a known path with a method it does not take: `405` with an `Allow` header
 * and the spec's error body (code `invalid_request`, as for a body over the size limit's 413).
 * h3 matches method-specific routes first, so this catch-all per path only sees the other methods.
 *
 * @example
 * mountMethodNotAllowed(app, routes, new Set(['/v1/licenses/activate']));
 */
export function mountMethodNotAllowed(app: H3, routes: readonly RouteDef[], preflight: ReadonlySet<string>): void {
  for (const [path, allow] of allowedMethods(routes, preflight)) {
    app.all(toRouterPath(path), (event) => {
      throw new ApiError('invalid_request', `Method ${event.req.method} is not allowed on this path; allowed: ${allow}.`, {
        status: 405,
        headers: { allow },
      });
    });
  }
}
