import { useEffect, useRef } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { SignInLinkForm } from '../../ui/components/sign-in-link.js';
import type { Route } from '../../ui/router.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';

const LINK_PROBLEMS: Record<string, string> = {
  used: 'That sign-in link has already been used. Each link works once: ask for a new one below.',
  expired: 'That sign-in link has expired (links work for 15 minutes). Ask for a new one below.',
  invalid: 'That sign-in link is not valid. Ask for a new one below.',
};

/** Sign-in: asks for a one-time link by e-mail; explains the operator's command for a server without e-mail. */
export function SignInPage({ route, reason }: { route: Route; reason?: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const problem = LINK_PROBLEMS[route.query.get('link') ?? ''];
  useEffect(() => {
    document.title = `Sign in · ${APP_NAME}`;
  }, []);
  return (
    <main class="center-page" id="main">
      <div class="center-card">
        <h1 ref={heading} tabIndex={-1}>
          Sign in
        </h1>
        {problem ? <Alert kind="warning">{problem}</Alert> : reason ? <Alert kind="info">{reason}</Alert> : null}
        <SignInLinkForm
          intro="We e-mail you a link that signs you in. It works once, for 15 minutes."
          request={(email) => api.session.requestLink(email)}
          sent={(to) => (
            <>
              If <strong>{to}</strong> belongs to an account owner or member, a sign-in link is on its way. Open it on this device within 15 minutes.
              If it is the owner of an account closed less than 30 days ago, the e-mail holds a link to reopen the account instead.
            </>
          )}
        />
        <details class="operator-help">
          <summary>No e-mail set up on this server?</summary>
          <p>The operator of the server prints a sign-in link for an account, at the root of the server's checkout, with:</p>
          <pre>
            <code>npx -y pnpm@10.34.9 svc owner sign-in-link --account &lt;acc_id&gt;</code>
          </pre>
          <p class="muted">
            Where the server was installed as the <code>@svc-licensing/server</code> package, the same command is{' '}
            <code>npx svc-licensing owner sign-in-link --account &lt;acc_id&gt;</code>. The first start of a new data folder
            writes the account ID to <code>data/initial-account.json</code>.
          </p>
          <p>
            For a closed account (within 30 days of its closure), <code>svc owner reopen-link --account &lt;acc_id&gt;</code> prints a
            link that reopens it.
          </p>
        </details>
      </div>
    </main>
  );
}
