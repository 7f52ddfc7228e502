import { createContext } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../ui/api.js';
import { Button } from '../ui/components/button.js';
import { Shell } from '../ui/components/layout.js';
import { href, navigate, useRoute } from '../ui/router.js';
import { api, onSignedOut, type Customer, type Portal } from './api.js';
import { LicensePage } from './pages/license.js';
import { LicensesPage } from './pages/licenses.js';
import { OfflinePage } from './pages/offline.js';
import { SignInPage } from './pages/sign-in.js';

/** The vendor whose portal this is, for every page. */
export const PortalContext = createContext<Portal>({ accountId: '', accountName: '', supportEmail: '' });

type State =
  | { kind: 'loading' }
  | { kind: 'no-portal' }
  | { kind: 'error'; message: string }
  | { kind: 'signed-out'; portal: Portal; reason?: string }
  | { kind: 'signed-in'; portal: Portal; customer: Customer };

/** The customer portal: the vendor's name, then the sign-in page or the customer's licenses. */
export function App() {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const route = useRoute();
  useEffect(() => {
    const start = async () => {
      let portal: Portal;
      try {
        portal = await api.get<Portal>('');
      } catch (error) {
        setState(ApiError.is(error) && error.status === 404 ? { kind: 'no-portal' } : { kind: 'error', message: (error as Error).message });
        return;
      }
      try {
        setState({ kind: 'signed-in', portal, customer: await api.get<Customer>('session') });
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
  if (state.kind === 'no-portal' || state.kind === 'error') {
    return (
      <main class="center-page" id="main">
        <div class="center-card" role="alert">
          <h1>{state.kind === 'no-portal' ? 'No license portal here' : 'The portal cannot start'}</h1>
          <p>{state.kind === 'no-portal' ? 'This address does not lead to a license portal. Check the link in your license e-mail.' : state.message}</p>
          {state.kind === 'error' ? (
            <Button variant="primary" onClick={() => location.reload()}>
              Try again
            </Button>
          ) : null}
        </div>
      </main>
    );
  }
  if (state.kind === 'signed-out') {
    return (
      <PortalContext.Provider value={state.portal}>
        <SignInPage {...(state.reason ? { reason: state.reason } : {})} />
      </PortalContext.Provider>
    );
  }
  const { portal, customer } = state;
  const signOut = async () => {
    try {
      await api.del('session');
    } finally {
      navigate('#/');
      setState({ kind: 'signed-out', portal, reason: 'You are signed out.' });
    }
  };
  const [section, id] = route.parts;
  const page =
    section === 'licenses' && id ? <LicensePage id={id} /> : section === 'offline' ? <OfflinePage /> : section === undefined ? <LicensesPage /> : <NotFound />;
  const nav = [
    { href: href(), label: 'Your licenses', current: section === undefined || section === 'licenses' },
    { href: href('offline'), label: 'Activate without internet', current: section === 'offline' },
  ];
  return (
    <PortalContext.Provider value={portal}>
      <Shell
        appName={`${portal.accountName} licenses`}
        nav={nav}
        account={
          <>
            <span class="who">{customer.email}</span>
            <Button variant="secondary" class="btn-small" onClick={signOut}>
              Sign out
            </Button>
          </>
        }
      >
        {page}
      </Shell>
    </PortalContext.Provider>
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
