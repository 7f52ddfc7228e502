/**
 * The portal's endpoints of the public API (`<prefix>/v1/portal/<accountId>/`, with the customer's
 * portal cookie): one typed function per call, bound to its method, path, request and answer.
 * Pages call these, never the client.
 */
import { createApiClient, path } from '../ui/api.js';
import type {
  AcceptedView,
  OfflineActivationInput,
  OfflineActivationResult,
  PortalFacts,
  PortalLicenseDetail,
  PortalLicenseView,
  PortalReleaseView,
  PortalSessionView,
  RevealedKeyView,
  SignedOutView,
} from '../ui/types.js';

/** The account whose portal this is: the page lives at `<prefix>/portal/<accountId>/`. */
const accountId = () => decodeURIComponent(location.pathname.split('/').filter((p) => p !== '').at(-1) ?? '');

const client = createApiClient({ base: () => new URL(`../../v1/portal/${encodeURIComponent(accountId())}/`, document.baseURI) });

/** Calls `listener` when the API answers 401 (the customer's session ended); returns the unsubscribe. */
export const onSignedOut = client.onSignedOut;

/** Every endpoint of the portal, by resource: `api.licenses.list()`, `api.session.get()`. */
export const api = {
  /** The portal's public facts (the vendor's name and support address); 404 when the account has none here. */
  portal: {
    get: () => client.get<PortalFacts>(''),
  },
  session: {
    get: () => client.get<PortalSessionView>('session'),
    signOut: () => client.del<SignedOutView>('session'),
    requestLink: (email: string) => client.post<AcceptedView>('session/link', { email }),
  },
  licenses: {
    list: () => client.get<{ data: PortalLicenseView[] }>('licenses'),
    get: (id: string) => client.get<PortalLicenseDetail>(path`licenses/${id}`),
    revealKey: (id: string) => client.post<RevealedKeyView>(path`licenses/${id}/key`),
    sendKey: (id: string) => client.post<{ sent: true }>(path`licenses/${id}/send-key`),
  },
  activations: {
    /** Frees one of the customer's machines (bounded per license and 30 days). */
    release: (id: string) => client.del<PortalReleaseView>(path`activations/${id}`),
    activateOffline: (input: OfflineActivationInput) => client.post<OfflineActivationResult>('activations/offline', input),
  },
};
