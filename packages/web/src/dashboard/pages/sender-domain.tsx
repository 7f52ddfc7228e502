import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { Button } from '../../ui/components/button.js';
import { ConfirmButton } from '../../ui/components/dialog.js';
import { CopyButton } from '../../ui/components/copy.js';
import { TextField } from '../../ui/components/field.js';
import { Form } from '../../ui/components/form.js';
import { Badge, Facts, PageHeader, Section } from '../../ui/components/layout.js';
import { Table } from '../../ui/components/table.js';
import { DateTime } from '../../ui/components/time.js';
import { useAction, useLoad } from '../../ui/hooks.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { OwnerOnlyNote } from '../widgets/owner-only.js';
import type { SenderDomainView } from '../../ui/types.js';

const STATUS_TONE = { verified: 'good', pending: 'warn', failed: 'bad' } as const;

/** The sender domain: claim (owner), DNS records to publish with copy buttons, verify, release (owner). */
export function SenderDomainPage() {
  const domain = useLoad(() => api.senderDomain.get(), []);
  const [name, setName] = useState('');
  const verifying = useAction();
  // The outcome of the last "Verify now" of this visit, announced in a region that is always there.
  const [checked, setChecked] = useState<SenderDomainView | null>(null);
  const d = domain.data;
  const verify = () =>
    verifying.run(async () => {
      setChecked(null);
      const answer = await api.senderDomain.verify();
      domain.set(answer);
      setChecked(answer);
    });
  return (
    <>
      <PageHeader title="Sender domain" appName={APP_NAME}>
        <p>License-key e-mails go out from your own domain, DKIM-signed, once you publish three DNS records.</p>
      </PageHeader>
      <Alert kind="error">{domain.error?.message ?? verifying.error}</Alert>
      {d && (d.domain === null || d.status === 'none') ? (
        <Section title="Claim a domain">
          <OwnerOnlyNote what="claim a sender domain" />
          {(
            <Form
              label="Claim a sender domain"
              submitLabel="Claim the domain"
              onSubmit={async () => {
                domain.set(await api.senderDomain.claim(name.trim()));
              }}
            >
              <TextField label="Domain" name="domain" placeholder="example.com" required value={name} onValue={setName} />
            </Form>
          )}
        </Section>
      ) : null}
      {d && d.domain !== null && d.status !== 'none' ? (
        <>
          <Section title={d.domain}>
            <Facts
              items={[
                ['Status', <Badge tone={STATUS_TONE[d.status]}>{d.status}</Badge>],
                ['Sends as', d.senderEmail ?? 'the service address, until verified'],
                ['Last checked', <DateTime value={d.checkedAt ?? null} empty="never" />],
              ]}
            />
          </Section>
          <Section title="Records to publish">
            <p>Add these TXT records at your DNS host, then verify. DNS changes can take a while to show.</p>
            <Table
              caption="DNS records"
              hideCaption
              rows={d.records}
              rowKey={(r) => r.purpose}
              empty="No record."
              columns={[
                { label: 'Purpose', cell: (r) => r.purpose },
                { label: 'Type', cell: (r) => r.type },
                {
                  label: 'Name',
                  cell: (r) => (
                    <span class="copy-field">
                      <code>{r.name}</code>
                      <CopyButton value={r.name} what={`name of the ${r.purpose} record`} />
                    </span>
                  ),
                },
                {
                  label: 'Value',
                  cell: (r) => (
                    <span class="copy-field">
                      <code class="record-value">{r.value}</code>
                      <CopyButton value={r.value} what={`value of the ${r.purpose} record`} />
                    </span>
                  ),
                },
                // Not found: absent, or present with another value (a wrong value is not the record asked for).
                { label: 'Found', cell: (r) => (r.verified === null ? 'not checked' : r.verified ? <Badge tone="good">found</Badge> : <Badge tone="bad">not found</Badge>) },
              ]}
            />
            <OwnerOnlyNote what="release the domain" />
            <div class="actions section-actions">
              <Button variant="primary" busy={verifying.busy} onClick={verify}>
                Verify now
              </Button>
              {(
                <ConfirmButton
                  label="Release the domain"
                  title={`Release ${d.domain}?`}
                  confirmLabel="Release"
                  onConfirm={async () => {
                    await api.senderDomain.release();
                    domain.reload();
                  }}
                >
                  <p>Its DKIM key is deleted and license-key e-mails go out from the service's address again.</p>
                </ConfirmButton>
              )}
            </div>
            <Alert kind={checked?.status === 'verified' ? 'success' : 'warning'}>{checked ? verifiedText(checked) : null}</Alert>
          </Section>
        </>
      ) : null}
    </>
  );
}

/** What a check found, in words: verified and the address mail now goes out from, or which records were not found. */
function verifiedText(d: SenderDomainView): string {
  if (d.status === 'verified') return `${d.domain} is verified: license-key e-mails now go out from ${d.senderEmail}, DKIM-signed.`;
  const wrong = d.records.filter((r) => r.verified === false).map((r) => r.purpose);
  const which = wrong.length > 1 ? `the ${wrong.slice(0, -1).join(', ')} and ${wrong.at(-1)} records were not found in DNS with the values above` : `the ${wrong[0] ?? ''} record was not found in DNS with the value above`;
  return `${d.domain} is not verified: ${which}. DNS changes can take a while to show.`;
}
