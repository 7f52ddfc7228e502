import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { ConfirmButton } from '../../ui/components/dialog.js';
import { CopyField } from '../../ui/components/copy.js';
import { TextField } from '../../ui/components/field.js';
import { Form } from '../../ui/components/form.js';
import { PageHeader, Pager, Section } from '../../ui/components/layout.js';
import { Table } from '../../ui/components/table.js';
import { DateTime } from '../../ui/components/time.js';
import { usePaged } from '../../ui/paging.js';
import { settled } from '../../ui/hooks.js';
import type { Actor, ApiKeyCreatedView, ApiKeyView } from '../../ui/types.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { OwnerOnlyNote } from '../widgets/owner-only.js';

/** Who created a key, in words: the owner or a member by address, another key by its name, the operator. */
function creatorOf(actor: Actor | null, keys: readonly ApiKeyView[]): string {
  if (actor === null) return 'not recorded';
  if (actor.kind === 'api_key') {
    const key = keys.find((k) => k.id === actor.apiKeyId);
    return key ? `API key ${key.name}` : 'an API key since revoked';
  }
  if (actor.kind === 'operator') return 'the operator (CLI)';
  return actor.email === null ? actor.kind : `${actor.kind} (${actor.email})`;
}

/** API keys for the vendor's backend: create (the value is shown once), revoke; the owner's only. */
export function ApiKeysPage() {
  const list = usePaged((cursor) => api.apiKeys.list({ cursor }), []);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<ApiKeyCreatedView | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <>
      <PageHeader title="API keys" appName={APP_NAME}>
        <p>Secret keys for your backend and scripts (bearer header). Never ship one inside your application.</p>
        <OwnerOnlyNote what="create or revoke API keys" />
      </PageHeader>
      {created ? (
        <Section title="Your new key">
          <Alert kind="warning">Copy it now: this is the only time it is shown. Only its hash is kept.</Alert>
          <CopyField value={created.key} what="API key" />
          <p class="muted">Name: {created.name}</p>
        </Section>
      ) : null}
      <Alert kind="success">{notice}</Alert>
      <Section title="Keys">
        <Alert kind="error">{list.error?.message}</Alert>
        <Table
          caption="API keys"
          hideCaption
          rows={list.data?.data ?? null}
          rowKey={(k) => k.id}
          empty="No API key."
          columns={[
            { label: 'Name', cell: (k) => k.name },
            { label: 'Starts with', cell: (k) => <code>{k.prefix}…</code> },
            { label: 'Created by', cell: (k) => creatorOf(k.createdBy, list.data?.data ?? []) },
            { label: 'Last used', cell: (k) => <DateTime value={k.lastUsedAt} empty="never" />, nowrap: true },
            {
              label: 'Action',
              cell: (k) => (
                <ConfirmButton
                  label={`Revoke ${k.name}`}
                  title={`Revoke the key ${k.name}?`}
                  confirmLabel="Revoke the key"
                  onConfirm={async () => {
                    await api.apiKeys.revoke(k.id);
                    setNotice(`The key ${k.name} is revoked.`);
                    if (created?.id === k.id) setCreated(null);
                    list.reload();
                  }}
                >
                  <p>
                    Every request made with <code>{k.prefix}…</code> is refused from now on. Scripts that use it stop working.
                  </p>
                </ConfirmButton>
              ),
            },
          ]}
        />
        <Pager hasPrevious={list.hasPrevious} nextCursor={list.data?.nextCursor ?? null} onNext={list.next} onPrevious={list.previous} />
      </Section>
      {settled(list) ? <Section title="Create a key">
        <Form
          label="Create an API key"
          submitLabel="Create the key"
          onSubmit={async () => {
            const key = await api.apiKeys.create({ name: name.trim() });
            setCreated(key);
            setNotice(null);
            setName('');
            list.reload();
          }}
        >
          <TextField label="Name" name="name" hint="What uses it, e.g. billing backend" required maxLength={200} value={name} onValue={setName} />
        </Form>
      </Section> : null}
    </>
  );
}
