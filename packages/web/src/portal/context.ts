import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { PortalFacts } from '../ui/types.js';

/** The vendor whose portal this is, for every page. */
export const PortalContext = createContext<PortalFacts>({ accountId: '', accountName: '', supportEmail: '' });

export function usePortal(): PortalFacts {
  return useContext(PortalContext);
}

/** The portal's name, after its vendor: the top bar and every page title. */
export function appNameOf(portal: PortalFacts): string {
  return `${portal.accountName} licenses`;
}
