import { Alert } from '../../ui/components/alert.js';
import { PageHeader, Section } from '../../ui/components/layout.js';
import { useMemo } from 'preact/hooks';
import { settled, useLoad } from '../../ui/hooks.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { EventTable } from '../widgets/event-table.js';
import { FirstSteps, loadStartProgress } from '../widgets/first-steps.js';
import { hasPlaceholders, NameYourAccount } from '../widgets/account-identity.js';

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

/** Overview: the first steps of a new account, usage against the service plan and the latest events. */
export function OverviewPage() {
  const account = useLoad(() => api.account.get(), []);
  const usage = useLoad(() => api.account.usage(), []);
  const progress = useLoad(() => loadStartProgress(), []);
  const events = useLoad(() => api.events.list(), []);
  const latest = useMemo(() => (events.data ? events.data.data.slice(0, 10) : null), [events.data]);
  const u = usage.data;
  return (
    <>
      <PageHeader title="Overview" appName={APP_NAME}>
        {account.data ? <p>Account {account.data.name}</p> : <p>&nbsp;</p>}
      </PageHeader>
      <Alert kind="error">{usage.error?.message ?? account.error?.message ?? progress.error?.message}</Alert>
      {/* Below the heading, the page appears in one piece once it knows whether to show the first steps. */}
      {settled(usage, progress, account) ? (
        <>
          {account.data && hasPlaceholders(account.data) ? <NameYourAccount account={account.data} onSaved={account.set} /> : null}
          {progress.data && !progress.data.hasLicense ? <FirstSteps progress={progress.data} /> : null}
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
            <EventTable events={latest} caption="The ten latest events" />
          </Section>
        </>
      ) : (
        <p class="loading" role="status">
          Loading…
        </p>
      )}
    </>
  );
}
