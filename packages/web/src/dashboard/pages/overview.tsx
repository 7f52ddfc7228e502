import { Alert } from '../../ui/components/alert.js';
import { PageHeader, Section } from '../../ui/components/layout.js';
import { useLoad } from '../../ui/hooks.js';
import type { Account, AuditEvent, Usage } from '../../ui/types.js';
import type { Page } from '../../ui/api.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { EventTable } from '../widgets/event-table.js';

function Meter({ label, used, limit }: { label: string; used: number | undefined; limit: number | null | undefined }) {
  const known = used !== undefined;
  const pct = known && limit ? Math.min(100, Math.round((used / limit) * 100)) : 0;
  return (
    <div class="card">
      <div class="label">{label}</div>
      <div class="value">
        {known ? used : '–'}
        <span class="muted"> / {limit === null ? 'unlimited' : limit === undefined ? '–' : limit}</span>
      </div>
      {limit ? (
        <div class={`meter${known && used > limit ? ' over' : ''}`} role="img" aria-label={`${pct}% of the limit`}>
          <span style={{ width: `${pct}%` }} />
        </div>
      ) : null}
    </div>
  );
}

/** Overview: usage against the service plan and the latest events. */
export function OverviewPage() {
  const account = useLoad(() => api.get<Account>('account'), []);
  const usage = useLoad(() => api.get<Usage>('account/usage'), []);
  const events = useLoad(() => api.get<Page<AuditEvent>>('events'), []);
  const u = usage.data;
  return (
    <>
      <PageHeader title="Overview" appName={APP_NAME}>
        {account.data ? <p>Account {account.data.name}</p> : <p>&nbsp;</p>}
      </PageHeader>
      <Alert kind="error">{usage.error?.message ?? account.error?.message}</Alert>
      {u?.overLimit ? <Alert kind="warning">The account is over a limit of its service plan ({u.plan}): new products or licenses are refused until it is back under it.</Alert> : null}
      <div class="cards" aria-label="Usage against the service plan" role="group">
        <div class="card">
          <div class="label">Service plan</div>
          <div class="value">{u ? u.plan : '–'}</div>
        </div>
        <Meter label="Active licenses" used={u?.activeLicenses} limit={u ? u.licenseLimit : undefined} />
        <Meter label="Products" used={u?.products} limit={u ? u.productLimit : undefined} />
      </div>
      <Section title="Recent events">
        <p>
          The ten latest; <a href="#/events">all events</a>.
        </p>
        <Alert kind="error">{events.error?.message}</Alert>
        <EventTable events={events.data ? events.data.data.slice(0, 10) : null} caption="The ten latest events" />
      </Section>
    </>
  );
}
