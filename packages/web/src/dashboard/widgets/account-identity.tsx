import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { TextField } from '../../ui/components/field.js';
import { Form } from '../../ui/components/form.js';
import { Section } from '../../ui/components/layout.js';
import type { AccountView } from '../../ui/types.js';
import { api } from '../api.js';
import { useIsOwner } from '../context.js';

/**
 * What the first start names an account when it was given no `--account-name` / `--owner-email`
 * (the server's `INITIAL_ACCOUNT_PLACEHOLDERS`): customers would see them.
 */
export const PLACEHOLDERS = { name: 'Default', ownerEmail: 'owner@example.com' } as const;

/** True while the account keeps a placeholder name or owner address. */
export const hasPlaceholders = (account: AccountView): boolean => account.name === PLACEHOLDERS.name || account.ownerEmail === PLACEHOLDERS.ownerEmail;

/** What asking for a new owner address says once the confirmation link is sent. */
const linkSent = (email: string) => `A confirmation link is on its way to ${email}: the owner address changes when it is opened (within 24 hours).`;

/**
 * On the overview of an account that still has the placeholders of its first start: asks for the
 * name customers see and the owner address sign-in links go to (the owner only: the new address
 * confirms by a link e-mailed to it).
 */
export function NameYourAccount({ account, onSaved }: { account: AccountView; onSaved: (account: AccountView) => void }) {
  const isOwner = useIsOwner();
  const placeholderOwner = account.ownerEmail === PLACEHOLDERS.ownerEmail;
  const [name, setName] = useState(account.name === PLACEHOLDERS.name ? '' : account.name);
  const [owner, setOwner] = useState('');
  const [done, setDone] = useState<string | null>(null);
  return (
    <Section title="Name your account">
      <p>
        This account still has the placeholders of the server's first start. Your customers see its name in the customer portal and as the sender of
        license-key e-mails{placeholderOwner ? ', and sign-in links are e-mailed to the owner address, ' + PLACEHOLDERS.ownerEmail + ', which nobody reads' : ''}.
      </p>
      <Alert kind="success">{done}</Alert>
      <Form
        label="Name your account"
        submitLabel="Save"
        onSubmit={async () => {
          const said: string[] = [];
          if (name.trim() !== account.name) {
            onSaved(await api.account.update({ name: name.trim() }));
            said.push('The name is saved.');
          }
          if (isOwner && owner.trim() !== '') {
            const change = await api.account.changeOwnerEmail(owner.trim());
            said.push(linkSent(change.email));
            setOwner('');
          }
          setDone(said.join(' ') || null);
        }}
      >
        <TextField label="Account name" name="name" required maxLength={200} hint="Your company or product line, as your customers know it" value={name} onValue={setName} />
        {isOwner && placeholderOwner ? (
          <TextField label="Owner e-mail address" name="email" type="email" autoComplete="email" hint="Sign-in links and account e-mails go here; it changes once you open the link we e-mail to it" value={owner} onValue={setOwner} />
        ) : null}
      </Form>
      {!isOwner && placeholderOwner ? <p class="muted">Only the account's owner can change the owner address.</p> : null}
    </Section>
  );
}

/** On the account settings (the owner only): changes the owner address through a link e-mailed to the new one. */
export function OwnerEmailForm({ account }: { account: AccountView }) {
  const [owner, setOwner] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  if (!useIsOwner()) return null;
  return (
    <Section title="Owner address">
      <p>
        Sign-in links and account e-mails go to <strong>{account.ownerEmail}</strong>. A new address is confirmed by a link we e-mail to it, and the old
        address is told once it changes.
      </p>
      <Alert kind="success">{sent}</Alert>
      <Form
        label="Change the owner address"
        submitLabel="E-mail a confirmation link"
        variant="secondary"
        onSubmit={async () => {
          const change = await api.account.changeOwnerEmail(owner.trim());
          setSent(linkSent(change.email));
          setOwner('');
        }}
      >
        <TextField label="New owner e-mail address" name="email" type="email" autoComplete="email" required value={owner} onValue={setOwner} />
      </Form>
    </Section>
  );
}
