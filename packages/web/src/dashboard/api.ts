import { createApiClient } from '../ui/api.js';

/** Listeners told when the API answers 401 (the session ended or was revoked). */
const signedOutListeners = new Set<() => void>();

export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

/** The dashboard's client of the public API: `<prefix>/v1/` next to `<prefix>/dashboard/`, with the session cookie. */
export const api = createApiClient({
  base: new URL('../v1/', document.baseURI),
  onUnauthorized: () => {
    for (const listener of signedOutListeners) listener();
  },
});
