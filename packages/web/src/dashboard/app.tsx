import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../ui/api.js';
import { Button } from '../ui/components/button.js';
import { Shell } from '../ui/components/layout.js';
import { StartFailure } from '../ui/components/start-failure.js';
import { matchRoute, navigate, navigationOf, useRoute, type Route } from '../ui/router.js';
import type { SignedInPrincipal } from '../ui/types.js';
import { api, onSignedOut } from './api.js';
import { APP_NAME, SessionContext } from './context.js';
import { SignInPage } from './pages/sign-in.js';
import { ROUTES } from './routes.js';

type State =
  | { kind: 'loading' }
  | { kind: 'signed-out'; reason?: string }
  | { kind: 'signed-in'; session: SignedInPrincipal }
  | { kind: 'error'; message: string };

/** The dashboard: asks `GET /v1/session` who is signed in, then shows the sign-in page or the pages. */
export function App() {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const route = useRoute();
  useEffect(() => {
    void api.session.get().then(
      (session) => setState(session.kind === 'session' ? { kind: 'signed-in', session } : { kind: 'signed-out' }),
      (error: unknown) =>
        setState(ApiError.is(error) && (error.status === 401 || error.status === 404) ? { kind: 'signed-out' } : { kind: 'error', message: (error as Error).message }),
    );
    return onSignedOut(() => setState({ kind: 'signed-out', reason: 'Your session has ended. Sign in again to continue.' }));
  }, []);

  if (state.kind === 'loading') return <p class="boot">Loading the dashboard…</p>;
  if (state.kind === 'error') {
    return (
      <StartFailure title="The dashboard cannot start" retry>
        {state.message}
      </StartFailure>
    );
  }
  if (state.kind === 'signed-out') return <SignInPage route={route} {...(state.reason ? { reason: state.reason } : {})} />;
  return <SignedIn session={state.session} route={route} onSignOut={() => setState({ kind: 'signed-out', reason: 'You are signed out.' })} />;
}

function SignedIn({ session, route, onSignOut }: { session: SignedInPrincipal; route: Route; onSignOut: () => void }) {
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
    <SessionContext.Provider value={session}>
      <Shell
        appName={APP_NAME}
        nav={navigationOf(ROUTES, match?.entry ?? null)}
        account={
          <>
            <span class="who" title={`${session.email} (${session.role})`}>
              {session.email} · {session.role}
            </span>
            <Button variant="secondary" class="btn-small" onClick={signOut}>
              Sign out
            </Button>
          </>
        }
      >
        {Page && match ? <Page route={route} params={match.params} /> : <NotFound />}
      </Shell>
    </SessionContext.Provider>
  );
}

function NotFound() {
  return (
    <div>
      <h1>Page not found</h1>
      <p>
        This address does not name a page of the dashboard. <a href="#/">Go to the overview</a>.
      </p>
    </div>
  );
}
