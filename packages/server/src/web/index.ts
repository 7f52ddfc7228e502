import type { H3 } from 'h3';
import { FastResponse } from 'srvx';
import { defaultWebDir, loadWebAssets, type WebAssets } from './assets.js';
import { mountFavicon, mountWebApp, type WebMount } from './serve.js';

export { defaultWebDir, loadWebAssets } from './assets.js';
export type { WebAssets, WebFile } from './assets.js';
export { HTML_CACHE, IMMUTABLE_CACHE, ICON_CACHE, mountFavicon, mountWebApp, WEB_CSP, WEB_SECURITY_HEADERS } from './serve.js';
export type { WebMount } from './serve.js';

/** The browser apps the server serves, and where. */
export const WEB_MOUNTS: readonly WebMount[] = [
  { app: 'dashboard', path: '/dashboard/' },
  // The customer portal of an account with the service-hosted portal (its API answers 404 for any other).
  { app: 'portal', path: '/portal/{accountId}/' },
];

/** Where the browser apps' build is, and which apps are mounted. */
export interface WebOptions {
  /** Folder of a `@svc-licensing/web` build; by default the copy shipped in the server's `dist/web`, or the workspace's build from source. */
  dir?: string;
  mounts?: readonly WebMount[];
}

const loaded = new Map<string, WebAssets>();

/** Reads a build once per folder and process (apps created again, as tests do, reuse it). */
function assetsIn(dir: string): WebAssets {
  let assets = loaded.get(dir);
  if (!assets) {
    assets = loadWebAssets(dir);
    loaded.set(dir, assets);
  }
  return assets;
}

/** Mounts every browser app on `h3`, and their icon at `/favicon.ico`; without a build, their pages say how to make one. */
export function mountWebApps(h3: H3, options: WebOptions = {}): void {
  const dir = options.dir ?? defaultWebDir();
  const assets = dir === null ? null : assetsIn(dir);
  const mounts = options.mounts ?? WEB_MOUNTS;
  for (const mount of mounts) mountWebApp(h3, assets, mount);
  // Browsers ask every origin for /favicon.ico (the link pages, an API answer opened in a tab).
  mountFavicon(h3, assets);
  // The service's root address leads a person who opens it to the dashboard.
  const dashboard = mounts.find((m) => m.app === 'dashboard');
  if (dashboard) h3.on('GET', '/', () => new FastResponse(null, { status: 302, headers: { location: dashboard.path, 'cache-control': 'no-cache' } }));
}
