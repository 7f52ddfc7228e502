import { afterAll, beforeAll } from 'vitest';
import { openBrowser, type BrowserSession } from './browser.js';
import type { StoreKind } from './stores.js';
import { startWebServer, type WebServer } from './web-server.js';
import type { ServeAppOptions } from './app-server.js';

/** A Chromium session and a served app on one store, as a browser test's describe block uses them. */
export interface BrowserAndServer {
  b: BrowserSession;
  server: WebServer;
}

/**
 * Opens Chromium and starts the server on `store` before the describe block's tests (together),
 * hands both to `opened` (which assigns the block's variables and may prepare more, such as a
 * signed-in page), and closes both after the block's tests. `serverOptions` (a sender-domain DNS
 * resolver, ...) go to `startWebServer`.
 *
 * @example
 * ```ts
 * let b: BrowserSession;
 * let server: WebServer;
 * useBrowserAndServer(store, (opened) => ({ b, server } = opened));
 * ```
 */
export function useBrowserAndServer(
  store: StoreKind,
  opened: (session: BrowserAndServer) => unknown,
  serverOptions: Pick<ServeAppOptions, 'publicHost' | 'notifyAllow' | 'senderDomains'> = {},
): void {
  let session: Partial<BrowserAndServer> = {};
  beforeAll(async () => {
    const [b, server] = await Promise.allSettled([openBrowser(), startWebServer(store, serverOptions)]);
    session = { ...(b.status === 'fulfilled' ? { b: b.value } : {}), ...(server.status === 'fulfilled' ? { server: server.value } : {}) };
    if (b.status === 'rejected') throw b.reason;
    if (server.status === 'rejected') throw server.reason;
    await opened(session as BrowserAndServer);
  });
  afterAll(async () => {
    await session.b?.close();
    await session.server?.close();
  });
}
