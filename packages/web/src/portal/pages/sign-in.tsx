import { useEffect } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { SignInLinkForm } from '../../ui/components/sign-in-link.js';
import { api } from '../api.js';
import { appNameOf, usePortal } from '../context.js';

/** Sign-in: the customer asks for a one-time link e-mailed to the address their license was bought with. */
export function SignInPage({ reason }: { reason?: string }) {
  const portal = usePortal();
  useEffect(() => {
    document.title = `Sign in · ${appNameOf(portal)}`;
  }, [portal.accountName]);
  return (
    <main class="center-page" id="main">
      <div class="center-card">
        <h1>Your {portal.accountName} licenses</h1>
        {reason ? <Alert kind="info">{reason}</Alert> : null}
        <SignInLinkForm
          intro={
            <>
              See your licenses and keys, free a machine you no longer use, or activate one without internet. Enter the e-mail address your
              license was sent to: we e-mail you a link that signs you in. It works once, for 15 minutes.
            </>
          }
          request={(email) => api.session.requestLink(email)}
          sent={(to) => (
            <>
              If <strong>{to}</strong> holds a license from {portal.accountName}, a sign-in link is on its way. Open it within 15 minutes.
            </>
          )}
        />
        <p class="muted">
          Questions about your license? Write to <a href={`mailto:${portal.supportEmail}`}>{portal.supportEmail}</a>.
        </p>
      </div>
    </main>
  );
}
