import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { TextField } from '../../ui/components/field.js';
import { FieldProblem, Form } from '../../ui/components/form.js';
import { PageHeader, Section } from '../../ui/components/layout.js';
import { useLoad } from '../../ui/hooks.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { OwnerOnlyNote } from '../widgets/owner-only.js';

/** Closing the account (owner): what it means, then a confirmation by typing the account's name. */
export function CloseAccountPage() {
  const account = useLoad(() => api.account.get(), []);
  const [typed, setTyped] = useState('');
  const [closed, setClosed] = useState(false);
  const name = account.data?.name ?? '';
  return (
    <>
      <PageHeader title="Close the account" appName={APP_NAME}>
        <p>Read what closing means before you do it.</p>
      </PageHeader>
      <Section title="What happens">
        <ul>
          <li>Every API key and every signed-in session is revoked at once; the dashboard cannot be signed in to.</li>
          <li>The service subscription is cancelled at the end of its period.</li>
          <li>New activations are refused with <code>account_closed</code>.</li>
          <li>Machines already activated keep validating for 30 days.</li>
          <li>Customers' payments keep being applied (renewals extend their licenses), but no license key is e-mailed.</li>
          <li>
            The owner receives an e-mail with a <strong>reopen link, valid 30 days</strong>: opening it reopens the account (you then create new API keys).
          </li>
          <li>
            <strong>After 30 days, every record of the account is deleted</strong> and cannot be recovered. Export the account and your signing keys first.
          </li>
        </ul>
      </Section>
      <Section title="Close">
        <Alert kind="error">{account.error?.message}</Alert>
        <OwnerOnlyNote what="close the account" />
        {closed ? (
          <Alert kind="success">The account is closed. A reopen link was e-mailed to the owner.</Alert>
        ) : (
          <Form
            label="Close the account"
            submitLabel="Close the account"
            variant="danger"
            onSubmit={async () => {
              if (typed.trim() !== name) throw new FieldProblem('confirm', `Type the account's name, ${name}, to confirm.`);
              await api.account.close();
              setClosed(true);
            }}
          >
            <TextField label={`Type the account's name (${name}) to confirm`} name="confirm" required autoComplete="off" value={typed} onValue={setTyped} />
          </Form>
        )}
      </Section>
    </>
  );
}
