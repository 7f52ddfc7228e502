import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/**
 * Routing on the URL's hash (`#/licenses/lic_…?status=active`): the server serves one HTML file
 * per app, and relative asset and API URLs work under any path prefix. Each app lists its pages in
 * a route table (`routes.ts`) that {@link matchRoute} reads.
 */
export interface Route {
  /** Path segments, decoded, e.g. ['licenses', 'lic_1']. */
  parts: string[];
  /** The path, e.g. `/licenses/lic_1`. */
  path: string;
  /** The query after `?`. */
  query: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const text = hash.replace(/^#/, '') || '/';
  const [path = '/', search = ''] = text.split('?');
  const parts = path.split('/').filter((p) => p !== '').map((p) => decodeURIComponent(p));
  return { parts, path: `/${parts.join('/')}`, query: new URLSearchParams(search) };
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

/** An entry of a route table: a path pattern where `:name` matches any one segment. */
export interface RouteEntry {
  /** e.g. `/licenses/:id`; `/` is the app's first page. */
  path: string;
  /** The label of its item in the navigation; entries without one are not listed. */
  nav?: string;
  /** The navigation item shown as current on this page (a detail page's list), when not its own. */
  section?: string;
}

/** A page of an app's route table (`routes.ts`). */
export interface AppRoute extends RouteEntry {
  component: ComponentType<PageProps>;
}

/** The entry a route matched and the values of its `:name` segments. */
export interface RouteMatch<T extends RouteEntry> {
  entry: T;
  params: Readonly<Record<string, string>>;
}

const segmentsOf = (pattern: string) => pattern.split('/').filter((s) => s !== '');

/**
 * The entry of `table` whose pattern matches the route, segment for segment; a literal segment wins
 * over `:name` (`/licenses/new` before `/licenses/:id`, whatever their order). Null when none does.
 */
export function matchRoute<T extends RouteEntry>(table: readonly T[], route: Pick<Route, 'parts'>): RouteMatch<T> | null {
  let best: { match: RouteMatch<T>; named: number } | null = null;
  for (const entry of table) {
    const segments = segmentsOf(entry.path);
    if (segments.length !== route.parts.length) continue;
    const params: Record<string, string> = {};
    let named = 0;
    const fits = segments.every((segment, i) => {
      const part = route.parts[i]!;
      if (!segment.startsWith(':')) return segment === part;
      params[segment.slice(1)] = part;
      named++;
      return true;
    });
    if (fits && (best === null || named < best.named)) best = { match: { entry, params }, named };
  }
  return best?.match ?? null;
}

/**
 * The navigation of a route table: its entries with a `nav` label, in table order, the one of the
 * current page (its own, or its `section`) marked current.
 */
export function navigationOf(table: readonly RouteEntry[], current: RouteEntry | null): { href: string; label: string; current: boolean }[] {
  const here = current ? (current.section ?? current.path) : null;
  return table.flatMap((entry) => (entry.nav === undefined ? [] : [{ href: href(...segmentsOf(entry.path)), label: entry.nav, current: entry.path === here }]));
}

/** What a route table's page receives: the route (its query) and the values of its `:name` segments. */
export interface PageProps {
  route: Route;
  params: Readonly<Record<string, string>>;
}
