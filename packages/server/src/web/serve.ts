import type { H3, H3Event } from 'h3';
import { FastResponse } from 'srvx';
import { toRouterPath } from '../http/route.js';
import type { WebAssets, WebFile } from './assets.js';

/**
 * Content-Security-Policy of the browser apps: scripts, styles and API calls from this origin only;
 * no inline script or style attribute, no other origin, no framing, no `<base>` rewrite.
 */
export const WEB_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of every answer of the browser apps. */
export const WEB_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': WEB_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** A year, never revalidated: the name changes whenever the content does. */
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';
/** The HTML names the current hashed files, so it is revalidated on every load. */
export const HTML_CACHE = 'no-cache';
/** `/favicon.ico` keeps its name when the icon changes: a day, then revalidated by its ETag. */
export const ICON_CACHE = 'public, max-age=86400';

/** esbuild's `[name]-[hash]` names: eight base-32 characters before the extension. */
const HASHED = /-[A-Z0-9]{8}\.[a-z0-9.]+$/;

/** One app served at a path: its HTML at `path` and the build's files at `path + 'assets/'`. */
export interface WebMount {
  /** App name in the build (`dashboard`, `portal`). */
  app: string;
  /** Where it lives, ending in `/`; may hold `{param}` segments (e.g. `/portal/{account}/`). */
  path: string;
}

function answer(event: H3Event, file: WebFile, cacheControl: string): Response {
  const headers = { ...WEB_SECURITY_HEADERS, 'content-type': file.contentType, 'cache-control': cacheControl, etag: file.etag };
  if (event.req.headers.get('if-none-match') === file.etag) return new FastResponse(null, { status: 304, headers });
  return new FastResponse(file.body, { status: 200, headers: { ...headers, 'content-length': String(file.body.byteLength) } });
}

function notFound(): Response {
  return new FastResponse('Not found\n', { status: 404, headers: { ...WEB_SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8', 'cache-control': HTML_CACHE } });
}

/** Answers `GET /favicon.ico` with the build's icon (404 without one). */
export function mountFavicon(h3: H3, assets: WebAssets | null): void {
  h3.on('GET', '/favicon.ico', (event) => (assets?.favicon ? answer(event, assets.favicon, ICON_CACHE) : notFound()));
}

/**
 * Serves a built app: `GET <path>` is its HTML (no-cache), `GET <path>assets/<file>` a file of
 * the build (immutable when content-hashed), `<path>` without its slash redirects to it. Without a
 * build the HTML route says how to make one (503).
 *
 * @example
 * mountWebApp(app, loadWebAssets(defaultWebDir()!), { app: 'dashboard', path: '/dashboard/' });
 */
export function mountWebApp(h3: H3, assets: WebAssets | null, mount: WebMount): void {
  if (!mount.path.startsWith('/') || !mount.path.endsWith('/')) throw new Error(`a web app's path starts and ends with "/": ${mount.path}`);
  const base = toRouterPath(mount.path);
  // The router matches the path with and without its final slash: without it, relative URLs of
  // the page would resolve one level up, so that form is redirected.
  h3.on('GET', base, (event) => {
    if (!event.url.pathname.endsWith('/')) {
      return new FastResponse(null, { status: 308, headers: { ...WEB_SECURITY_HEADERS, location: `${event.url.pathname}/${event.url.search}` } });
    }
    const html = assets?.apps.get(mount.app);
    if (!html) {
      return new FastResponse(`The ${mount.app} app is not built: run npx -y pnpm@10.34.9 build (it builds @svc-licensing/web before the server).\n`, {
        status: 503,
        headers: { ...WEB_SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8', 'cache-control': HTML_CACHE },
      });
    }
    return answer(event, html, HTML_CACHE);
  });
  h3.on('GET', `${base}assets/:file`, (event) => {
    // The raw segment: a name of the build's manifest or nothing (no decoding, no path joining).
    const name = event.url.pathname.slice(event.url.pathname.lastIndexOf('/') + 1);
    const file = assets?.files.get(name);
    if (!file) return notFound();
    return answer(event, file, HASHED.test(name) ? IMMUTABLE_CACHE : HTML_CACHE);
  });
}
