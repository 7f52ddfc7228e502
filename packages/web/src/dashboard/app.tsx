import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../ui/api.js';
import { Button } from '../ui/components/button.js';
import { Shell } from '../ui/components/layout.js';
import { href, navigate, useRoute, type Route } from '../ui/router.js';
import type { Session } from '../ui/types.js';
import { api, onSignedOut } from './api.js';
import { APP_NAME, SessionContext } from './context.js';
import { PAGES, findPage } from './pages.js';
import { SignInPage } from './pages/sign-in.js';

type State = { kind: 'loading' } | { kind: 'signed-out'; reason?: string } | { kind: 'signed-in'; session: Session } | { kind: 'error'; message: string };

/** The dashboard: asks `GET /v1/session` who is signed in, then shows the sign-in page or the pages. */
export function App() {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const route = useRoute();
  useEffect(() => {
    const load = () =>
      api.get<Session>('session').then(
        (session) => setState(session.kind === 'session' ? { kind: 'signed-in', session } : { kind: 'signed-out' }),
        (error: unknown) =>
          setState(ApiError.is(error) && (error.status === 401 || error.status === 404) ? { kind: 'signed-out' } : { kind: 'error', message: (error as Error).message }),
      );
    void load();
    return onSignedOut(() => setState({ kind: 'signed-out', reason: 'Your session has ended. Sign in again to continue.' }));
  }, []);

  if (state.kind === 'loading') return <p class="boot">Loading the dashboard…</p>;
  if (state.kind === 'error') {
    return (
      <main class="center-page">
        <div class="center-card" role="alert">
          <h1>The dashboard cannot start</h1>
          <p>{state.message}</p>
          <Button variant="primary" onClick={() => location.reload()}>
            Try again
          </Button>
        </div>
      </main>
    );
  }
  if (state.kind === 'signed-out') return <SignInPage route={route} {...(state.reason ? { reason: state.reason } : {})} />;
  return <SignedIn session={state.session} route={route} onSignOut={() => setState({ kind: 'signed-out', reason: 'You are signed out.' })} />;
}

function SignedIn({ session, route, onSignOut }: { session: Session; route: Route; onSignOut: () => void }) {
  const page = findPage(route);
  const signOut = async () => {
    try {
      await api.del('session');
    } finally {
      navigate('#/');
      onSignOut();
    }
  };
  const Page: ComponentType<{ route: Route }> = page?.component ?? NotFound;
  const nav = PAGES.filter((p) => p.nav && (p.ownerOnly !== true || session.role === 'owner')).map((p) => ({
    href: href(...p.path),
    label: p.label,
    current: page === p || (page !== undefined && page.section === p.path[0] && p.path.length === 1),
  }));
  return (
    <SessionContext.Provider value={session}>
      <Shell
        appName={APP_NAME}
        nav={nav}
        account={
          <>
            <span class="who" title={`${session.email ?? ''} (${session.role ?? ''})`}>
              {session.email} · {session.role}
            </span>
            <Button variant="secondary" class="btn-small" onClick={signOut}>
              Sign out
            </Button>
          </>
        }
      >
        <Page route={route} />
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
