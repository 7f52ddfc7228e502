import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../ui/api.js';
import { Button } from '../ui/components/button.js';
import { Shell } from '../ui/components/layout.js';
import { StartFailure } from '../ui/components/start-failure.js';
import { matchRoute, navigate, navigationOf, useRoute, type Route } from '../ui/router.js';
import type { PortalFacts, PortalSessionView } from '../ui/types.js';
import { api, onSignedOut } from './api.js';
import { appNameOf, PortalContext, usePortal } from './context.js';
import { SignInPage } from './pages/sign-in.js';
import { ROUTES } from './routes.js';

type State =
  | { kind: 'loading' }
  | { kind: 'no-portal' }
  | { kind: 'error'; message: string }
  | { kind: 'signed-out'; portal: PortalFacts; reason?: string }
  | { kind: 'signed-in'; portal: PortalFacts; customer: PortalSessionView };

/** The customer portal: the vendor's name, then the sign-in page or the customer's licenses. */
export function App() {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const route = useRoute();
  useEffect(() => {
    const start = async () => {
      let portal: PortalFacts;
      try {
        portal = await api.portal.get();
      } catch (error) {
        setState(ApiError.is(error) && error.status === 404 ? { kind: 'no-portal' } : { kind: 'error', message: (error as Error).message });
        return;
      }
      try {
        setState({ kind: 'signed-in', portal, customer: await api.session.get() });
      } catch (error) {
        if (ApiError.is(error) && error.status === 401) setState({ kind: 'signed-out', portal });
        else setState({ kind: 'error', message: (error as Error).message });
      }
    };
    void start();
    return onSignedOut(() =>
      setState((s) => (s.kind === 'signed-in' ? { kind: 'signed-out', portal: s.portal, reason: 'Your session has ended. Sign in again to continue.' } : s)),
    );
  }, []);

  if (state.kind === 'loading') return <p class="boot">Loading…</p>;
  if (state.kind === 'no-portal') {
    return (
      <StartFailure title="No license portal here" retry={false}>
        This address does not lead to a license portal. Check the link in your license e-mail.
      </StartFailure>
    );
  }
  if (state.kind === 'error') {
    return (
      <StartFailure title="The portal cannot start" retry>
        {state.message}
      </StartFailure>
    );
  }
  if (state.kind === 'signed-out') {
    return (
      <PortalContext.Provider value={state.portal}>
        <SignInPage {...(state.reason ? { reason: state.reason } : {})} />
      </PortalContext.Provider>
    );
  }
  const { portal } = state;
  return (
    <PortalContext.Provider value={portal}>
      <SignedIn customer={state.customer} route={route} onSignOut={() => setState({ kind: 'signed-out', portal, reason: 'You are signed out.' })} />
    </PortalContext.Provider>
  );
}

function SignedIn({ customer, route, onSignOut }: { customer: PortalSessionView; route: Route; onSignOut: () => void }) {
  const portal = usePortal();
  const match = matchRoute(ROUTES, route);
  const signOut = async () => {
    try {
      await api.session.signOut();
    } finally {
      navigate('#/');
      onSignOut();
    }
  };
  const Page = match?.entry.component;
  return (
    <Shell
      appName={appNameOf(portal)}
      nav={navigationOf(ROUTES, match?.entry ?? null)}
      account={
        <>
          <span class="who">{customer.email}</span>
          <Button variant="secondary" class="btn-small" onClick={signOut}>
            Sign out
          </Button>
        </>
      }
    >
      {Page && match ? <Page route={route} params={match.params} /> : <NotFound />}
    </Shell>
  );
}

function NotFound() {
  return (
    <div>
      <h1>Page not found</h1>
      <p>
        <a href="#/">See your licenses</a>.
      </p>
    </div>
  );
}
