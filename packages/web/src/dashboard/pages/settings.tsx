import { useEffect, useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { CopyField, Id } from '../../ui/components/copy.js';
import { SelectField, TextField } from '../../ui/components/field.js';
import { Form } from '../../ui/components/form.js';
import { Facts, PageHeader, Section } from '../../ui/components/layout.js';
import { DateTime } from '../../ui/components/time.js';
import { settled, useLoad } from '../../ui/hooks.js';
import type { AccountView } from '../../ui/types.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { Email } from '../widgets/customer.js';
import { OwnerEmailForm } from '../widgets/account-identity.js';

/** Account settings: name, sender details, default locale, customer portal; the service plan and billing. */
export function SettingsPage() {
  const account = useLoad(() => api.account.get(), []);
  const billing = useLoad(() => api.account.billing(), []);
  return (
    <>
      <PageHeader title="Account settings" appName={APP_NAME}>
        <p>How your customers' e-mails are sent, and where they manage their licenses.</p>
      </PageHeader>
      <Alert kind="error">{account.error?.message}</Alert>
      {settled(account, billing) ? <>
      {account.data ? <AccountForm account={account.data} onSaved={account.set} /> : null}
      {account.data ? <OwnerEmailForm account={account.data} /> : null}
      <Section title="Service plan and billing">
        <Alert kind="error">{billing.error?.message}</Alert>
        {billing.data ? (
          <Facts
            items={[
              ['Service plan', billing.data.plan],
              ['Interval', billing.data.interval ?? '—'],
              ['Status', billing.data.status ?? '—'],
              ['Current period ends', <DateTime value={billing.data.currentPeriodEnd ?? null} empty="—" />],
              ['Cancels at', <DateTime value={billing.data.cancelAt ?? null} empty="—" />],
            ]}
          />
        ) : null}
      </Section>
      </> : null}
    </>
  );
}

function AccountForm({ account, onSaved }: { account: AccountView; onSaved: (a: AccountView) => void }) {
  const [name, setName] = useState(account.name);
  const [senderName, setSenderName] = useState(account.senderName ?? '');
  const [senderEmail, setSenderEmail] = useState(account.senderEmail ?? '');
  const [replyTo, setReplyTo] = useState(account.replyTo ?? '');
  const [defaultLocale, setDefaultLocale] = useState(account.defaultLocale);
  const [portalMode, setPortalMode] = useState(account.customerPortal.mode);
  const [portalUrl, setPortalUrl] = useState(account.customerPortal.mode === 'custom' ? account.customerPortal.url : '');
  const [saved, setSaved] = useState(false);
  useEffect(() => setSaved(false), [name, senderName, senderEmail, replyTo, defaultLocale, portalMode, portalUrl]);
  return (
    <Section title="Account">
      <Facts
        items={[
          ['Account ID', <Id value={account.id} what="account ID" />, 'wide'],
          ['Owner', <Email value={account.ownerEmail} />, 'wide'],
          ['Customer portal address', account.portalUrl ? <CopyField value={account.portalUrl} what="customer portal address" address /> : 'none', 'wide'],
        ]}
      />
      <Alert kind="success">{saved ? 'Saved.' : null}</Alert>
      <Form
        label="Account settings"
        submitLabel="Save the settings"
        onSubmit={async () => {
          const customerPortal: AccountView['customerPortal'] = portalMode === 'custom' ? { mode: 'custom', url: portalUrl.trim() } : portalMode === 'svc' ? { mode: 'svc' } : { mode: 'none' };
          const updated = await api.account.update({
            name: name.trim(),
            senderName: senderName.trim() || null,
            senderEmail: senderEmail.trim() || null,
            replyTo: replyTo.trim(),
            defaultLocale,
            customerPortal,
          });
          onSaved(updated);
          setSaved(true);
        }}
      >
        <TextField label="Account name" name="name" required maxLength={200} value={name} onValue={setName} />
        <div class="grid-2">
          <TextField label="Sender name" name="senderName" hint="Shown as the sender of license-key e-mails" maxLength={100} value={senderName} onValue={setSenderName} />
          <TextField label="Sender address" name="senderEmail" type="email" hint="Used when your sender domain is verified" value={senderEmail} onValue={setSenderEmail} />
          <TextField label="Reply-to address" name="replyTo" type="email" hint="Empty: replies go to the sender address" value={replyTo} onValue={setReplyTo} />
          <SelectField
            label="Default language of customer e-mails"
            name="defaultLocale"
            value={defaultLocale}
            onValue={setDefaultLocale}
            options={[
              { value: 'en', label: 'English' },
              { value: 'fr', label: 'French' },
            ]}
          />
        </div>
        <SelectField
          label="Customer portal"
          name="customerPortal"
          hint="Where customers see their licenses and free their machines"
          value={portalMode}
          onValue={setPortalMode}
          options={[
            { value: 'svc', label: 'Hosted by this service' },
            { value: 'custom', label: 'Your own page' },
            { value: 'none', label: 'No portal' },
          ]}
        />
        {portalMode === 'custom' ? <TextField label="Portal address" name="customerPortal.url" type="url" required placeholder="https://" value={portalUrl} onValue={setPortalUrl} /> : null}
      </Form>
    </Section>
  );
}
