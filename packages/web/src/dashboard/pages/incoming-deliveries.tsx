import { Alert } from '../../ui/components/alert.js';
import { Button } from '../../ui/components/button.js';
import { Id } from '../../ui/components/copy.js';
import { Badge, Facts, PageHeader, Pager, Section } from '../../ui/components/layout.js';
import { Table } from '../../ui/components/table.js';
import { DateTime } from '../../ui/components/time.js';
import { useLoad } from '../../ui/hooks.js';
import { usePaged } from '../../ui/paging.js';
import { href, type PageProps } from '../../ui/router.js';
import type { IncomingDeliveryView } from '../../ui/types.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { INCOMING_RESULT, REFUSAL_REASON } from '../notification-names.js';

/** What became of the deliveries of a row, and why a refused one was refused. */
function Outcome({ delivery: d }: { delivery: IncomingDeliveryView }) {
  const [word, tone] = INCOMING_RESULT[d.result];
  return (
    <>
      <Badge tone={tone}>{word}</Badge> <span class="muted">HTTP {d.status}</span>
      {d.reason ? (
        <>
          <br />
          <strong>{REFUSAL_REASON[d.reason]}</strong> <span class="muted">({d.reason})</span>
        </>
      ) : null}
    </>
  );
}

/**
 * An integration's incoming delivery log: every delivery its provider sent in the last 30 days,
 * refused ones with the reason (a wrong secret is a signature mismatch), alike ones within a minute
 * as one row with a count.
 */
export function IncomingDeliveriesPage({ params }: PageProps) {
  const id = params.id!;
  const integration = useLoad(() => api.integrations.get(id), [id]);
  const list = usePaged((cursor) => api.integrations.deliveries(id, { cursor }), [id]);
  const i = integration.data;
  return (
    <>
      <PageHeader title="Incoming deliveries" appName={APP_NAME}>
        <p>
          <a href={href('integrations')}>All integrations</a>
        </p>
        <p>What the payment provider sent to this integration's webhook URL in the last 30 days, newest first, and what became of it. Refused deliveries say why, so a wrong secret or clock shows here.</p>
      </PageHeader>
      <Alert kind="error">{integration.error?.message ?? list.error?.message}</Alert>
      {i ? (
        <Section title={`${i.provider} · ${i.environment}`}>
          <Facts
            items={[
              ['Signing secret', i.hasWebhookSecret ? <Badge tone="good">saved</Badge> : <Badge tone="warn">missing: deliveries are refused</Badge>],
              ['Integration ID', <Id value={i.id} what="integration ID" />, 'wide'],
            ]}
          />
        </Section>
      ) : null}
      <Section title="Deliveries">
        <div class="actions">
          <Button variant="secondary" class="btn-small" busy={list.loading} onClick={list.reload}>
            Refresh the log
          </Button>
        </div>
        <Table
          caption="Incoming deliveries"
          hideCaption
          rows={list.data?.data ?? (list.error ? [] : null)}
          rowKey={(d) => d.id}
          empty="Nothing came from the provider in the last 30 days. Check the webhook URL you gave it."
          columns={[
            {
              label: 'When',
              cell: (d) =>
                d.count > 1 ? (
                  <>
                    <DateTime value={d.firstAt} /> to <DateTime value={d.lastAt} />
                  </>
                ) : (
                  <DateTime value={d.firstAt} />
                ),
            },
            { label: 'Outcome', cell: (d) => <Outcome delivery={d} />, stack: true },
            { label: 'Event', stack: true, cell: (d) => (d.eventType ? <><code>{d.eventType}</code>{d.eventId ? <><br /><code class="muted">{d.eventId}</code></> : null}</> : <span class="muted">not read (unverified)</span>) },
            { label: 'Count', cell: (d) => (d.count === 1 ? '1' : `${d.count} alike`), nowrap: true },
            { label: 'Answer', cell: (d) => d.message, stack: true },
          ]}
        />
        <Pager hasPrevious={list.hasPrevious} nextCursor={list.data?.nextCursor ?? null} onNext={list.next} onPrevious={list.previous} />
      </Section>
    </>
  );
}
