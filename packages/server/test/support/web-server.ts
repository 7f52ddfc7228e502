/** The browser tests' server: the app of app-server.ts on a real store of each kind. */
import { serveApp, type ServeAppOptions, type WebServer } from './app-server.js';
import { openTestStore, type StoreKind } from './stores.js';

export type { WebServer } from './app-server.js';

/**
 * `publicHost` names the server in its public base URL instead of `127.0.0.1` (it still listens on
 * 127.0.0.1; the browser maps the name there, see `openBrowser`'s `hostResolverRules`).
 */
export async function startWebServer(kind: StoreKind, options: Pick<ServeAppOptions, 'publicHost' | 'notifyAllow' | 'senderDomains'> = {}): Promise<WebServer> {
  const store = await openTestStore(kind);
  try {
    return await serveApp(store.store(), () => store.close(), options);
  } catch (error) {
    await store.close();
    throw error;
  }
}
