import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { Button } from '../../ui/components/button.js';
import { Address, Id } from '../../ui/components/copy.js';
import { ConfirmButton } from '../../ui/components/dialog.js';
import { CheckboxField, TextField } from '../../ui/components/field.js';
import { Form } from '../../ui/components/form.js';
import { Badge, Facts, PageHeader, Section } from '../../ui/components/layout.js';
import { DateTime } from '../../ui/components/time.js';
import { useLoad } from '../../ui/hooks.js';
import { href, navigate, type PageProps } from '../../ui/router.js';
import type { WebhookEndpointSecretView, WebhookEndpointView, WebhookEventType } from '../../ui/types.js';
import { api } from '../api.js';
import { APP_NAME, useIsOwner } from '../context.js';
import { endpointState, eventsOf } from '../notification-names.js';
import { DeliveryLog } from '../widgets/delivery-log.js';
import { EventTypesField } from '../widgets/event-types.js';
import { NewSecret } from '../widgets/new-secret.js';
import { OwnerOnlyNote } from '../widgets/owner-only.js';

/** One webhook endpoint: its facts, test event, secret rotation, changes, deletion (owner) and its delivery log. */
export function WebhookEndpointPage({ params }: PageProps) {
  const id = params.id!;
  const endpoint = useLoad(() => api.webhookEndpoints.get(id), [id]);
  const owner = useIsOwner();
  const [secret, setSecret] = useState<WebhookEndpointSecretView | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [testing, setTesting] = useState(false);
  // Bumped when a test event is queued, so the delivery log shows it.
  const [version, setVersion] = useState(0);
  const e = endpoint.data;
  const [state, tone] = e ? endpointState(e) : ['', 'neutral' as const];

  const sendTest = async () => {
    setTesting(true);
    setError(null);
    setNotice(null);
    try {
      const delivery = await api.webhookEndpoints.test(id);
      setNotice(`A test event is on its way (webhook-id ${delivery.id}); it shows in the delivery log below.`);
      setVersion((v) => v + 1);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setTesting(false);
    }
  };

  return (
    <>
      <PageHeader title="Webhook endpoint" appName={APP_NAME}>
        <p>
          <a href={href('webhook-endpoints')}>All endpoints</a>
        </p>
        <OwnerOnlyNote what="send test events, rotate the secret, change or delete this endpoint" />
      </PageHeader>
      <Alert kind="error">{endpoint.error?.message ?? error}</Alert>
      <Alert kind="success">{notice}</Alert>
      {secret ? <NewSecret endpoint={secret} rotated /> : null}
      {e ? (
        <>
          <Section title="Endpoint">
            <Facts
              items={[
                ['URL', <span class="address">{<Address value={e.url} />}</span>, 'wide'],
                ['State', <Badge tone={tone}>{state}</Badge>],
                ['Events', eventsOf(e), 'wide'],
                ['Description', e.description || 'none'],
                ['Previous secret', e.previousSecretExpiresAt ? <>signs too until <DateTime value={e.previousSecretExpiresAt} /></> : 'no longer signs'],
                ['Created', <DateTime value={e.createdAt} />],
                ['Endpoint ID', <Id value={e.id} what="endpoint ID" />, 'wide'],
              ]}
            />
            {owner ? (
              <div class="actions section-actions">
                <Button variant="primary" busy={testing} disabled={!e.enabled} onClick={() => void sendTest()}>
                  Send a test event
                </Button>
                <ConfirmButton
                  label="Rotate the secret"
                  title="Rotate the signing secret?"
                  confirmLabel="Rotate the secret"
                  variant="secondary"
                  onConfirm={async () => {
                    setSecret(await api.webhookEndpoints.rotateSecret(id));
                    setNotice(null);
                    endpoint.reload();
                  }}
                >
                  <p>A new secret is made and shown once. For 24 hours every notification is signed with both, so your backend can switch to the new one within a day.</p>
                </ConfirmButton>
                <ConfirmButton
                  label="Delete the endpoint"
                  title="Delete this endpoint?"
                  confirmLabel="Delete"
                  onConfirm={async () => {
                    await api.webhookEndpoints.remove(id);
                    navigate(href('webhook-endpoints'));
                  }}
                >
                  <p>Nothing more is sent to it, including the retries still due. This cannot be undone.</p>
                </ConfirmButton>
              </div>
            ) : null}
            {owner && !e.enabled ? <p class="hint">A disabled endpoint is sent nothing, test events included; enable it below.</p> : null}
          </Section>
          {owner ? <EditEndpoint endpoint={e} onSaved={(saved) => (endpoint.set(saved), setNotice('The endpoint is saved.'))} /> : null}
          <DeliveryLog endpointId={id} version={version} />
        </>
      ) : null}
    </>
  );
}

function EditEndpoint({ endpoint: e, onSaved }: { endpoint: WebhookEndpointView; onSaved: (endpoint: WebhookEndpointView) => void }) {
  const [url, setUrl] = useState(e.url);
  const [description, setDescription] = useState(e.description);
  const [events, setEvents] = useState<WebhookEventType[] | null>(e.events.length === 0 ? null : e.events);
  const [enabled, setEnabled] = useState(e.enabled);
  return (
    <Section title="Change the endpoint">
      <Form
        label="Change the endpoint"
        submitLabel="Save the endpoint"
        variant="secondary"
        onSubmit={async () => {
          onSaved(await api.webhookEndpoints.update(e.id, { url: url.trim(), description: description.trim(), events: events ?? [], enabled }));
        }}
      >
        <TextField label="URL" name="url" type="url" required maxLength={2048} spellcheck={false} autoComplete="off" value={url} onValue={setUrl} />
        <TextField label="Description" name="description" maxLength={500} value={description} onValue={setDescription} />
        <EventTypesField value={events} onValue={setEvents} />
        <CheckboxField
          label="Enabled"
          hint={e.disabledReason ? 'Enabling it again sends the notifications held while it was disabled.' : 'A disabled endpoint keeps its notifications until it is enabled again.'}
          checked={enabled}
          onChecked={setEnabled}
        />
      </Form>
    </Section>
  );
}
