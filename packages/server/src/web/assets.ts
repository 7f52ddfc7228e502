import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The built browser apps (`@svc-licensing/web`): each app's HTML and the content-hashed files they
 * load, read once into memory. Only files named in the build's manifest can ever be answered, so
 * no request path reaches the file system.
 */
export interface WebAssets {
  /** Folder they were read from. */
  dir: string;
  /** HTML of each app by name (`dashboard`, `portal`). */
  apps: ReadonlyMap<string, WebFile>;
  /** Files under `assets/` by file name. */
  files: ReadonlyMap<string, WebFile>;
  /** The apps' icon (a `.ico` of the build), also answered at `/favicon.ico`; null in a build without one. */
  favicon: WebFile | null;
}

export interface WebFile {
  body: Uint8Array<ArrayBuffer>;
  contentType: string;
  /** Strong validator (hash of the body), for `If-None-Match`. */
  etag: string;
}

interface Manifest {
  apps: Record<string, { html: string }>;
  assets: string[];
  /** Name of the icon among `assets`. */
  favicon?: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/** A file name the build may produce: letters, digits, `-`, `_` and dots, never `..`, no folder. */
const SAFE_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+$/;

function contentType(name: string): string {
  const dot = name.lastIndexOf('.');
  const ext = dot < 0 ? '' : name.slice(dot).toLowerCase();
  return CONTENT_TYPES[ext] ?? 'application/octet-stream';
}

function readWebFile(path: string, name: string): WebFile {
  const body: Uint8Array<ArrayBuffer> = new Uint8Array(readFileSync(path));
  return { body, contentType: contentType(name), etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

/** This module's folder: `dist/` in the build (tsup shims `import.meta.url` in CommonJS), `src/web/` from source. */
function moduleDir(): string {
  return dirname(fileURLToPath(import.meta.url));
}

/**
 * Where the built apps are: `dist/web` next to the server's own build (copied there by the
 * server's build and shipped in the package), else the workspace's `packages/web/dist` when the
 * server runs from source (tests, `tsx`). Null when neither holds a build.
 */
export function defaultWebDir(): string | null {
  const here = moduleDir();
  const candidates = [join(here, 'web'), join(here, '..', '..', '..', 'web', 'dist')];
  return candidates.find((dir) => existsSync(join(dir, 'manifest.json'))) ?? null;
}

/**
 * Reads a build of `@svc-licensing/web` (its `manifest.json`, each app's HTML and every asset).
 * Throws when the folder holds no build.
 */
export function loadWebAssets(dir: string): WebAssets {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) throw new Error(`no web build in ${dir} (manifest.json is missing): run npx -y pnpm@10.34.9 build`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
  const apps = new Map<string, WebFile>();
  for (const [name, app] of Object.entries(manifest.apps)) apps.set(name, readWebFile(join(dir, app.html), 'index.html'));
  const files = new Map<string, WebFile>();
  for (const name of manifest.assets) {
    if (!SAFE_NAME.test(name)) throw new Error(`unexpected asset name in the web manifest: ${JSON.stringify(name)}`);
    files.set(name, readWebFile(join(dir, 'assets', name), name));
  }
  return { dir, apps, files, favicon: manifest.favicon === undefined ? null : (files.get(manifest.favicon) ?? null) };
}
