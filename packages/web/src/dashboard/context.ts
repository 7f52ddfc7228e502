import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { SignedInPrincipal } from '../ui/types.js';

export const APP_NAME = 'Licensing dashboard';

/** The signed-in session, given to every page. */
export const SessionContext = createContext<SignedInPrincipal | null>(null);

export function useSession(): SignedInPrincipal {
  const session = useContext(SessionContext);
  if (session === null) throw new Error('useSession outside a signed-in page');
  return session;
}

/** True for the account owner: owner-only actions are shown to them only (the API refuses members anyway). */
export function useIsOwner(): boolean {
  return useSession().role === 'owner';
}
