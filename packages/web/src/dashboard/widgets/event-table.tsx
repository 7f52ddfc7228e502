import type { ComponentChildren } from 'preact';
import { Table } from '../../ui/components/table.js';
import { DateTime } from '../../ui/components/time.js';
import { useLoad } from '../../ui/hooks.js';
import { href } from '../../ui/router.js';
import { LICENSE_STATUS_LABEL } from '../../ui/components/license-status.js';
import type { AuditEventView, LicenseStatus } from '../../ui/types.js';
import { eventNames, productOf, type EventNames } from '../names.js';

/** What each type of event is, in words. */
const WHAT: Readonly<Record<AuditEventView['type'], string>> = {
  'license.created': 'License created',
  'license.status_changed': 'Status changed',
  'license.updated': 'Terms changed',
  'activation.created': 'Machine activated',
  'activation.deleted': 'Machine freed',
  'webhook.received': 'Payment webhook',
  'signing_key.created': 'Signing key created',
  'signing_key.rotated': 'Signing key activated',
  'signing_key.exported': 'Private keys exported',
  'account.plan_changed': 'Service plan changed',
  'sender_domain.claimed': 'Sender domain claimed',
  'sender_domain.checked': 'Sender domain checked',
  'sender_domain.released': 'Sender domain released',
  'account.exported': 'Account exported',
  'account.imported': 'Account imported',
  'account.owner_email_changed': 'Owner address changed',
  'lease.expired': 'Floating lease lapsed',
  'lease.borrowed': 'Seat borrowed',
  'lease.returned': 'Borrow returned',
  'api_key.created': 'API key created',
  'api_key.revoked': 'API key revoked',
  'member.invited': 'Member invited',
  'member.removed': 'Member removed',
  'session.signed_in': 'Signed in',
  'session.revoked': 'Session ended',
  'account.updated': 'Settings changed',
  'portal.key_revealed': 'Key shown in the portal',
};

/** Who did it, in words: the owner, a member or a customer by address, an API key by name, the operator, or the service itself. */
export function describeActor(actor: AuditEventView['actor'], apiKeys: ReadonlyMap<string, string> = new Map()): string {
  if (actor === null) return 'The service';
  switch (actor.kind) {
    case 'owner':
      return `Owner ${actor.email ?? ''}`.trim();
    case 'member':
      return `Member ${actor.email ?? ''}`.trim();
    case 'customer':
      return `Customer ${actor.email ?? ''}`.trim();
    case 'api_key': {
      const name = actor.apiKeyId === null ? undefined : apiKeys.get(actor.apiKeyId);
      return name === undefined ? 'An API key' : `API key ${name}`;
    }
    default:
      return 'The operator';
  }
}

/** Who freed a machine, by the event's `source`. */
const FREED_BY: Readonly<Record<string, string>> = {
  vendor: 'by you', portal: 'by the customer in the portal', client: 'by the application',
  lapsed: '30 days after its floating lease lapsed', plan_change: 'when the plan changed',
};

const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));
const status = (value: unknown) => LICENSE_STATUS_LABEL[value as LicenseStatus] ?? text(value);

/**
 * The details of an event in words: statuses as both apps show them, a machine by its name; IDs
 * and fingerprints stay out (the row names the license or product).
 */
export function describeEvent(event: AuditEventView, machines: ReadonlyMap<string, string> = new Map()): string {
  const d = event.data ?? {};
  switch (event.type) {
    case 'license.created':
      return `Plan ${text(d.plan)}, ${d.source === 'vendor' ? 'created by hand' : `from ${text(d.source)}`}`;
    case 'license.status_changed':
      return `${status(d.from)} → ${status(d.to)}${d.source ? ` (${text(d.source)})` : ''}`;
    case 'license.updated':
      return `Changed: ${Array.isArray(d.fields) ? d.fields.join(', ') : ''}`;
    case 'activation.created':
      return `${machines.get(text(d.activation)) ?? 'A machine'}, ${d.source === 'offline' ? 'offline, from a request file' : 'online'}`;
    case 'activation.deleted':
      return `${machines.get(text(d.activation)) ?? 'A machine'} freed ${FREED_BY[text(d.source)] ?? text(d.source)}`;
    case 'webhook.received':
      return [d.provider, d.eventType, d.result, d.detail].filter((x) => x !== undefined && x !== null && x !== '').map(text).join(' · ');
    case 'signing_key.created':
      return `${text(d.kid)}, pending`;
    case 'signing_key.rotated':
      return `${text(d.kid)} signs now${d.retiredKid ? `; ${text(d.retiredKid)} retired` : ''}`;
    case 'signing_key.exported':
      return Array.isArray(d.kids) ? d.kids.join(', ') : '';
    case 'account.plan_changed':
    case 'account.owner_email_changed':
      return `${text(d.from)} → ${text(d.to)}`;
    case 'sender_domain.checked':
      return `${text(d.domain)}: ${text(d.status)}`;
    case 'sender_domain.claimed':
    case 'sender_domain.released':
      return text(d.domain);
    case 'api_key.created':
    case 'api_key.revoked':
      return text(d.name);
    case 'member.invited':
    case 'member.removed':
    case 'session.revoked':
    case 'portal.key_revealed':
      return text(d.email);
    case 'session.signed_in':
      return `${text(d.email)} (${text(d.role)})`;
    case 'account.updated':
      return `Changed: ${Array.isArray(d.fields) ? d.fields.join(', ') : ''}`;
    default:
      return Object.entries(d)
        .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(', ');
  }
}

/** The license (by its customer, with the product) or the product an event is about, linked. */
function Subject({ event, names }: { event: AuditEventView; names: EventNames }): ComponentChildren {
  if (event.license) {
    const license = names.licenses.get(event.license);
    if (!license) return <a href={href('licenses', event.license)}>{event.license}</a>;
    return (
      <>
        <a href={href('licenses', event.license)}>{license.customer}</a>
        <span class="muted"> · {license.product}</span>
      </>
    );
  }
  const product = productOf(event);
  if (product) return <a href={href('products', product)}>{names.products.get(product) ?? product}</a>;
  return <span class="muted">the account</span>;
}

/**
 * Audit events: when, what, what about (a license by its customer and product, or a product) and
 * the details, and with `byWhom` who did it. Rows appear with their names, and `footer` (a pager) with them, so nothing moves.
 */
export function EventTable({
  events, caption, empty = 'No events yet.', footer, byWhom = false,
}: { events: AuditEventView[] | null; caption: string; empty?: ComponentChildren; footer?: ComponentChildren; byWhom?: boolean }) {
  // The rows shown are the ones whose names are known: while the next page's names load, the
  // previous rows stay.
  const named = useLoad(() => (events === null ? Promise.resolve(null) : eventNames(events).then((names) => ({ events, names }))), [events]);
  const names = named.data?.names;
  return (
    <>
      <Table
        caption={caption}
        hideCaption
        rows={named.data?.events ?? null}
        rowKey={(e) => e.id}
        empty={empty}
        columns={[
          { label: 'When', cell: (e) => <DateTime value={e.createdAt} />, nowrap: true },
          { label: 'Event', cell: (e) => WHAT[e.type] ?? e.type },
          { label: 'About', cell: (e) => <Subject event={e} names={names!} /> },
          { label: 'Details', cell: (e) => describeEvent(e, names!.machines) },
          ...(byWhom ? [{ label: 'By', cell: (e: AuditEventView) => describeActor(e.actor, names!.apiKeys) }] : []),
        ]}
      />
      {/* Under the rows once they are there (the pager), so it never moves. */}
      {named.data ? footer : null}
    </>
  );
}
