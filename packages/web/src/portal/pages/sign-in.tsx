import { useContext, useEffect, useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { TextField } from '../../ui/components/field.js';
import { Form } from '../../ui/components/form.js';
import { api } from '../api.js';
import { PortalContext } from '../app.js';

/** Sign-in: the customer asks for a one-time link e-mailed to the address their license was bought with. */
export function SignInPage({ reason }: { reason?: string }) {
  const portal = useContext(PortalContext);
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  useEffect(() => {
    document.title = `Sign in · ${portal.accountName} licenses`;
  }, [portal.accountName]);
  return (
    <main class="center-page" id="main">
      <div class="center-card">
        <h1>Your {portal.accountName} licenses</h1>
        {reason ? <Alert kind="info">{reason}</Alert> : null}
        {sentTo === null ? (
          <>
            <p class="muted">
              See your licenses and keys, free a machine you no longer use, or activate one without internet. Enter the e-mail address your
              license was sent to: we e-mail you a link that signs you in. It works once, for 15 minutes.
            </p>
            <Form
              label="Request a sign-in link"
              submitLabel="E-mail me a sign-in link"
              onSubmit={async () => {
                await api.post('session/link', { email: email.trim() });
                setSentTo(email.trim());
              }}
            >
              <TextField label="E-mail address" type="email" autoComplete="email" required value={email} onValue={setEmail} />
            </Form>
          </>
        ) : (
          <Alert kind="success">
            If <strong>{sentTo}</strong> holds a license from {portal.accountName}, a sign-in link is on its way. Open it within 15 minutes.{' '}
            <button type="button" class="btn btn-link" onClick={() => setSentTo(null)}>
              Use another address
            </button>
          </Alert>
        )}
        <p class="muted">
          Questions about your license? Write to <a href={`mailto:${portal.supportEmail}`}>{portal.supportEmail}</a>.
        </p>
      </div>
    </main>
  );
}
