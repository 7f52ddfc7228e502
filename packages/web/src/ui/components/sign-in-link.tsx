import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Alert } from './alert.js';
import { TextField } from './field.js';
import { Form } from './form.js';

export interface SignInLinkFormProps {
  /** What the link does, shown above the form. */
  intro: ComponentChildren;
  /** Asks the API to e-mail a sign-in link; a thrown error's message is shown in the form. */
  request: (email: string) => Promise<unknown>;
  /** The confirmation once asked for, naming the address (followed by a "Use another address" button). */
  sent: (email: string) => ComponentChildren;
}

/**
 * The e-mail form of the dashboard's and the portal's sign-in pages: asks for a one-time sign-in link, then says
 * where it went and offers to use another address.
 */
export function SignInLinkForm({ intro, request, sent }: SignInLinkFormProps) {
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  if (sentTo !== null) {
    return (
      <Alert kind="success">
        {sent(sentTo)}{' '}
        <button type="button" class="btn btn-link" onClick={() => setSentTo(null)}>
          Use another address
        </button>
      </Alert>
    );
  }
  return (
    <>
      <p class="muted">{intro}</p>
      <Form
        label="Request a sign-in link"
        submitLabel="E-mail me a sign-in link"
        onSubmit={async () => {
          await request(email.trim());
          setSentTo(email.trim());
        }}
      >
        <TextField label="E-mail address" name="email" type="email" autoComplete="email" required value={email} onValue={setEmail} />
      </Form>
    </>
  );
}
