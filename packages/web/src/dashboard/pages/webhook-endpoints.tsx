import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { Address } from '../../ui/components/copy.js';
import { CheckboxField, TextField } from '../../ui/components/field.js';
import { Form } from '../../ui/components/form.js';
import { Badge, PageHeader, Section } from '../../ui/components/layout.js';
import { Table } from '../../ui/components/table.js';
import { DateTime } from '../../ui/components/time.js';
import { settled, useLoad } from '../../ui/hooks.js';
import { href } from '../../ui/router.js';
import type { WebhookEndpointSecretView, WebhookEventType } from '../../ui/types.js';
import { api } from '../api.js';
import { APP_NAME, useIsOwner } from '../context.js';
import { endpointState, eventsOf } from '../notification-names.js';
import { EventTypesField } from '../widgets/event-types.js';
import { NewSecret } from '../widgets/new-secret.js';
import { OwnerOnlyNote } from '../widgets/owner-only.js';

/** At most this many endpoints per account (the API refuses more with 409). */
const MAX_ENDPOINTS = 10;

/** Webhook endpoints of the vendor's backend: the list, and registering one (its secret shown once). Members read only. */
export function WebhookEndpointsPage() {
  const list = useLoad(() => api.webhookEndpoints.all(), []);
  const owner = useIsOwner();
  const [created, setCreated] = useState<WebhookEndpointSecretView | null>(null);
  return (
    <>
      <PageHeader title="Notifications" appName={APP_NAME}>
        <p>
          Your backend hears what happens (a license created or revoked, a machine activated, a key rotated) as signed{' '}
          <a href="https://www.standardwebhooks.com/" rel="noreferrer">
            Standard Webhooks
          </a>{' '}
          POSTed to the endpoints you register here.
        </p>
        <OwnerOnlyNote what="register, change or delete endpoints" />
      </PageHeader>
      {created ? (
        <NewSecret endpoint={created} rotated={false}>
          <Alert kind="success">
            The endpoint is registered. <a href={href('webhook-endpoints', created.id)}>Open it</a> to send a test event.
          </Alert>
        </NewSecret>
      ) : null}
      <Section title="Endpoints">
        <Alert kind="error">{list.error?.message}</Alert>
        <Table
          caption="Webhook endpoints"
          hideCaption
          rows={list.data ?? (list.error ? [] : null)}
          rowKey={(e) => e.id}
          empty="No endpoint yet: nothing is sent."
          columns={[
            {
              label: 'URL',
              cell: (e) => (
                <a href={href('webhook-endpoints', e.id)} class="address">
                  <Address value={e.url} />
                </a>
              ),
            },
            { label: 'Description', cell: (e) => e.description || <span class="muted">none</span> },
            { label: 'Events', cell: (e) => eventsOf(e) },
            {
              label: 'State',
              cell: (e) => {
                const [word, tone] = endpointState(e);
                return <Badge tone={tone}>{word}</Badge>;
              },
            },
            { label: 'Created', cell: (e) => <DateTime value={e.createdAt} />, nowrap: true },
          ]}
        />
      </Section>
      {settled(list) && owner ? <CreateEndpoint count={list.data?.length ?? 0} onCreated={(e) => (setCreated(e), list.reload())} /> : null}
    </>
  );
}

function CreateEndpoint({ count, onCreated }: { count: number; onCreated: (endpoint: WebhookEndpointSecretView) => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<WebhookEventType[] | null>(null);
  const [enabled, setEnabled] = useState(true);
  return (
    <Section title="Register an endpoint">
      {count >= MAX_ENDPOINTS ? <Alert kind="info">This account has {MAX_ENDPOINTS} endpoints, the most it may have: delete one first.</Alert> : null}
      <Form
        label="Register an endpoint"
        submitLabel="Register the endpoint"
        onSubmit={async () => {
          const endpoint = await api.webhookEndpoints.create({ url: url.trim(), description: description.trim(), events: events ?? [], enabled });
          setUrl('');
          setDescription('');
          setEvents(null);
          onCreated(endpoint);
        }}
      >
        <TextField
          label="URL"
          name="url"
          type="url"
          required
          maxLength={2048}
          placeholder="https://api.your-app.example/hooks/licensing"
          hint="https, on a public address; redirects are not followed"
          spellcheck={false}
          autoComplete="off"
          value={url}
          onValue={setUrl}
        />
        <TextField label="Description" name="description" maxLength={500} hint="Optional: what receives it" value={description} onValue={setDescription} />
        <EventTypesField value={events} onValue={setEvents} />
        <CheckboxField label="Enabled: send notifications now" checked={enabled} onChecked={setEnabled} />
      </Form>
    </Section>
  );
}
