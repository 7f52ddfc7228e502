import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { ConfirmButton } from '../../ui/components/dialog.js';
import { TextField } from '../../ui/components/field.js';
import { Form } from '../../ui/components/form.js';
import { Badge, PageHeader, Pager, Section } from '../../ui/components/layout.js';
import { Table } from '../../ui/components/table.js';
import { DateTime } from '../../ui/components/time.js';
import { settled, useLoad } from '../../ui/hooks.js';
import { usePaged } from '../../ui/paging.js';
import { api } from '../api.js';
import { APP_NAME, useIsOwner } from '../context.js';
import { OwnerOnlyNote } from '../widgets/owner-only.js';

/** Members: everyone sees them; the owner invites and removes them, and sees and ends sessions. */
export function MembersPage() {
  const members = usePaged((cursor) => api.members.list({ cursor }), []);
  const isOwner = useIsOwner();
  const [email, setEmail] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <>
      <PageHeader title="Members" appName={APP_NAME}>
        <p>Members sign in with their own e-mail and can do everything except the owner's operations (key export, sender domain, export and closure).</p>
      </PageHeader>
      <Alert kind="success">{notice}</Alert>
      <Section title="Members">
        <Alert kind="error">{members.error?.message}</Alert>
        <Table
          caption="Members of the account"
          hideCaption
          rows={members.data?.data ?? null}
          rowKey={(m) => m.id}
          empty="No member: only the owner can sign in."
          columns={[
            { label: 'E-mail', cell: (m) => m.email },
            { label: 'Added', cell: (m) => <DateTime value={m.createdAt} />, nowrap: true },
            {
              label: 'Action',
              cell: (m) => (
                <ConfirmButton
                  label={`Remove ${m.email}`}
                  title={`Remove ${m.email}?`}
                  confirmLabel="Remove the member"
                  onConfirm={async () => {
                    await api.members.remove(m.id);
                    setNotice(`${m.email} is removed; their sessions ended.`);
                    members.reload();
                  }}
                >
                  <p>They are signed out at once and cannot sign in again unless invited.</p>
                </ConfirmButton>
              ),
            },
          ]}
        />
        <Pager hasPrevious={members.hasPrevious} nextCursor={members.data?.nextCursor ?? null} onNext={members.next} onPrevious={members.previous} />
      </Section>
      {settled(members) ? <>
      <Section title="Invite a member">
        <OwnerOnlyNote what="invite or remove members" />
        <Form
          label="Invite a member"
          submitLabel="Invite"
          onSubmit={async () => {
            const member = await api.members.invite(email.trim());
            setNotice(`${member.email} is invited: a sign-in link is on its way to them.`);
            setEmail('');
            members.reload();
          }}
        >
          <TextField label="E-mail address" name="email" type="email" autoComplete="off" required value={email} onValue={setEmail} />
        </Form>
      </Section>
      {isOwner ? <Sessions /> : null}
      </> : null}
    </>
  );
}

function Sessions() {
  const sessions = useLoad(() => api.session.list(), []);
  return (
    <Section title="Signed-in sessions">
      <Alert kind="error">{sessions.error?.message}</Alert>
      <Table
        caption="Sessions of the account"
        hideCaption
        rows={sessions.data?.data ?? null}
        rowKey={(s) => s.id}
        empty="No session."
        columns={[
          { label: 'Who', cell: (s) => <>{s.email} {s.current ? <Badge tone="good">this session</Badge> : null}</> },
          { label: 'Role', cell: (s) => s.role },
          { label: 'Last seen', cell: (s) => <DateTime value={s.lastSeenAt} />, nowrap: true },
          { label: 'Expires', cell: (s) => <DateTime value={s.expiresAt} />, nowrap: true },
          {
            label: 'Action',
            cell: (s) =>
              s.current ? (
                '—'
              ) : (
                <ConfirmButton
                  label={`End the session of ${s.email}`}
                  title="End this session?"
                  confirmLabel="End the session"
                  onConfirm={async () => {
                    await api.session.end(s.id);
                    sessions.reload();
                  }}
                >
                  <p>That browser is signed out at its next request.</p>
                </ConfirmButton>
              ),
          },
        ]}
      />
    </Section>
  );
}
