import { Table } from '../../ui/components/table.js';
import { DateTime } from '../../ui/components/time.js';
import { href } from '../../ui/router.js';
import type { AuditEvent } from '../../ui/types.js';

function describe(event: AuditEvent): string {
  const d = event.data ?? {};
  if (event.type === 'license.status_changed') return `${String(d.from)} → ${String(d.to)}${d.source ? ` (${String(d.source)})` : ''}`;
  if (event.type === 'webhook.received') return [d.provider, d.eventType, d.result, d.detail].filter((x) => x !== undefined && x !== null && x !== '').join(' · ');
  const entries = Object.entries(d);
  return entries.length === 0 ? '' : entries.map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ');
}

/** Audit events: when, type, license (a link to it) and details. */
export function EventTable({ events, caption }: { events: AuditEvent[] | null; caption: string }) {
  return (
    <Table
      caption={caption}
      hideCaption
      rows={events}
      rowKey={(e) => e.id}
      empty="No events yet."
      columns={[
        { label: 'When', cell: (e) => <DateTime value={e.createdAt} />, nowrap: true },
        { label: 'Event', cell: (e) => <code class="event-type">{e.type}</code> },
        { label: 'License', cell: (e) => (e.license ? <a href={href('licenses', e.license)}>{e.license}</a> : '—') },
        { label: 'Details', cell: (e) => describe(e) },
      ]}
    />
  );
}
