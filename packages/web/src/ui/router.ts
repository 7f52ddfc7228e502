import { useEffect, useState } from 'preact/hooks';

/**
 * Routing on the URL's hash (`#/licenses/lic_…?status=active`): the server serves one HTML file
 * per app, and relative asset and API URLs work under any path prefix.
 */
export interface Route {
  /** Path segments, e.g. ['licenses', 'lic_1']. */
  parts: string[];
  path: string;
  params: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const text = hash.replace(/^#/, '') || '/';
  const [path = '/', search = ''] = text.split('?');
  const parts = path.split('/').filter((p) => p !== '').map((p) => decodeURIComponent(p));
  return { parts, path: `/${parts.join('/')}`, params: new URLSearchParams(search) };
}

/** The current route; re-renders on every hash change. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** `href` of a route: `href('licenses', id)` → `#/licenses/<id>`; a query object is appended. */
export function href(...parts: (string | Record<string, string | undefined>)[]): string {
  const query = parts.find((p): p is Record<string, string | undefined> => typeof p === 'object');
  const segments = parts.filter((p): p is string => typeof p === 'string').map((p) => encodeURIComponent(p));
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') params.set(k, v);
  const search = params.toString();
  return `#/${segments.join('/')}${search ? `?${search}` : ''}`;
}

export function navigate(to: string): void {
  if (location.hash !== to) location.hash = to;
}
