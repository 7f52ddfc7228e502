/** Shared set-up of the tests that load the BUILT browser bundle into Debian's headless Chromium. */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
/** The browser build (`dist/browser`), made by `pnpm build`. */
export const BUNDLE = new URL('../../dist/browser/', import.meta.url).pathname;
export const hasChromium = existsSync(CHROMIUM);
const inCI = process.env.CI === 'true' || process.env.CI === '1';

/** True when the browser tests must be skipped: no Chromium and not in CI (under CI they fail instead). */
export function skipBrowserTests(testName: string): boolean {
  const skip = !hasChromium && !inCI;
  if (skip) console.warn(`${testName}: SKIPPED, ${CHROMIUM} is missing (apt-get install chromium); under CI=true this fails instead.`);
  return skip;
}

/** Fails clearly when Chromium or the built bundle is missing. */
export function assertBrowserPrerequisites(): void {
  if (!hasChromium) throw new Error(`${CHROMIUM} is missing: the browser test cannot run under CI`);
  if (!existsSync(join(BUNDLE, 'index.js'))) throw new Error(`${BUNDLE}index.js is missing: run pnpm build first`);
}

/**
 * Serves `page` at `/`, the bundle's `.js` files, and any `extra` routes, on 127.0.0.1.
 * `onRequest` sees every requested path (to check which chunks a page loaded).
 */
export async function serveBundlePage(
  page: string,
  options: { extra?: Record<string, { type: string; body: string }>; onRequest?: (path: string) => void } = {},
): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    options.onRequest?.(path);
    const extra = options.extra?.[path];
    if (path === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    else if (extra) res.writeHead(200, { 'content-type': extra.type }).end(extra.body);
    else if (/^\/[\w-]+\.js$/.test(path) && existsSync(join(BUNDLE, path))) {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(join(BUNDLE, path)));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Launches headless Chromium with the flags this closed-network machine needs, and `extraArgs`. */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extraArgs],
  });
}

/** Closes an http server (a no-op when it never started). */
export function closeServer(server: Server | undefined): Promise<void> {
  return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
}
