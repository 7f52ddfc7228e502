import { useEffect, useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { Button } from '../../ui/components/button.js';
import { Id } from '../../ui/components/copy.js';
import { Badge, Pager, Section } from '../../ui/components/layout.js';
import { Table } from '../../ui/components/table.js';
import { DateTime } from '../../ui/components/time.js';
import { usePaged } from '../../ui/paging.js';
import type { DeliveryAttemptView, NotificationDeliveryView } from '../../ui/types.js';
import { api } from '../api.js';
import { useIsOwner } from '../context.js';
import { DELIVERY_STATE } from '../notification-names.js';

/** While a delivery of the page is pending, the log is asked again this often. */
const REFRESH_MS = 3000;

/** One attempt on a line: when, the answer's status (or why none came) and how long it took. */
function Attempt({ attempt: a }: { attempt: DeliveryAttemptView }) {
  return (
    <li>
      <DateTime value={a.at} /> · {a.status !== null ? <span class={a.ok ? undefined : 'text-bad'}>{a.status}</span> : <span class="text-bad">no answer ({a.error})</span>} ·{' '}
      <span class="nowrap">{a.latencyMs} ms</span>
      {!a.ok && a.message && a.error !== 'http_status' ? <span class="muted"> · {a.message}</span> : null}
      {a.response ? (
        <details>
          <summary>Your answer</summary>
          <pre class="response">{a.response}</pre>
        </details>
      ) : null}
    </li>
  );
}

/**
 * The delivery log of a webhook endpoint, newest first: each notification with its attempts (time,
 * status, latency), its next retry, and "Send again" for the owner. Asked again every few seconds
 * while one of its notifications is pending, and after `version` changes (a test event was queued).
 */
export function DeliveryLog({ endpointId, version }: { endpointId: string; version: number }) {
  const list = usePaged((cursor) => api.webhookEndpoints.deliveries(endpointId, { cursor }), [endpointId, version]);
  const owner = useIsOwner();
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const pending = list.data?.data.some((d) => d.status === 'pending') ?? false;
  useEffect(() => {
    if (!pending) return undefined;
    const timer = setInterval(list.reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [pending, list.reload]);

  const resend = async (d: NotificationDeliveryView) => {
    setBusy(d.id);
    setError(null);
    setNotice(null);
    try {
      await api.webhookEndpoints.resend(endpointId, d.id);
      setNotice(`${d.type} (${d.id}) is being sent again.`);
      list.reload();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(null);
    }
  };

  return (
    <Section title="Delivery log" id="deliveries">
      <p class="muted">Every notification of the last 30 days, newest first. A failed one is tried again about 5 s, 5 min, 30 min, 2 h, 5 h and 10 h later, then every 10 h for 3 days.</p>
      <div class="actions">
        <Button variant="secondary" class="btn-small" busy={list.loading} onClick={list.reload}>
          Refresh the log
        </Button>
      </div>
      <Alert kind="error">{error ?? list.error?.message}</Alert>
      <Alert kind="success">{notice}</Alert>
      <Table
        caption="Deliveries"
        hideCaption
        rows={list.data?.data ?? (list.error ? [] : null)}
        rowKey={(d) => d.id}
        empty="Nothing was sent to this endpoint in the last 30 days."
        columns={[
          {
            label: 'Notification',
            stack: true,
            cell: (d) => {
              const [word, tone] = DELIVERY_STATE[d.status];
              return (
                <>
                  <code>{d.type}</code> <Badge tone={tone}>{word}</Badge>
                  <br />
                  <span class="muted">webhook-id</span> <Id value={d.id} what="webhook-id" />
                </>
              );
            },
          },
          {
            label: 'Attempts',
            stack: true,
            cell: (d) =>
              d.attempts.length === 0 ? (
                <span class="muted">not tried yet</span>
              ) : (
                <ol class="attempts">
                  {d.attempts.map((a, i) => (
                    <Attempt key={i} attempt={a} />
                  ))}
                </ol>
              ),
          },
          { label: 'Next retry', cell: (d) => <DateTime value={d.nextAttemptAt} empty="none" />, nowrap: true },
          ...(owner
            ? [
                {
                  label: 'Action',
                  cell: (d: NotificationDeliveryView) => (
                    <Button variant="secondary" class="btn-small" busy={busy === d.id} onClick={() => void resend(d)} aria-label={`Send again: ${d.type} ${d.id}`}>
                      Send again
                    </Button>
                  ),
                },
              ]
            : []),
        ]}
      />
      <Pager hasPrevious={list.hasPrevious} nextCursor={list.data?.nextCursor ?? null} onNext={list.next} onPrevious={list.previous} />
    </Section>
  );
}
