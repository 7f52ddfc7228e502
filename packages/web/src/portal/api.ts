import { createApiClient } from '../ui/api.js';

/** The account whose portal this is: the page lives at `<prefix>/portal/<accountId>/`. */
export const ACCOUNT_ID = decodeURIComponent(location.pathname.split('/').filter((p) => p !== '').at(-1) ?? '');

/** Listeners told when the API answers 401 (the customer session ended). */
const signedOutListeners = new Set<() => void>();

export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

/** The portal's client of the public API: `<prefix>/v1/portal/<accountId>/`, with the customer's portal cookie. */
export const api = createApiClient({
  base: new URL(`../../v1/portal/${encodeURIComponent(ACCOUNT_ID)}/`, document.baseURI),
  onUnauthorized: () => {
    for (const listener of signedOutListeners) listener();
  },
});

/** The portal's public facts. */
export interface Portal {
  accountId: string;
  accountName: string;
  supportEmail: string;
}

export interface Customer {
  email: string;
  accountId: string;
  expiresAt: string;
}

export interface PortalLicense {
  id: string;
  product: { id: string; name: string };
  plan: { code: string; name: string };
  status: string;
  validUntil: string | null;
  seats: number;
  activationLimit: number;
  activationCount: number;
}

export interface PortalActivation {
  id: string;
  fingerprint: string;
  name: string | null;
  platform: string | null;
  appVersion: string | null;
  createdAt: string;
  lastSeenAt: string;
}

export interface PortalLicenseDetail extends PortalLicense {
  activations: PortalActivation[];
  releasesLeft: number;
  releaseLimit: number;
}
