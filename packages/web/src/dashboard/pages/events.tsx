import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { Id } from '../../ui/components/copy.js';
import { SelectField, TextField } from '../../ui/components/field.js';
import { Facts, PageHeader, Pager, Section } from '../../ui/components/layout.js';
import { settled, useLoad } from '../../ui/hooks.js';
import { usePaged } from '../../ui/paging.js';
import { href, navigate, type PageProps } from '../../ui/router.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { lookUpLicense, type LicenseOwner } from '../names.js';
import type { Actor } from '../../ui/types.js';
import { EventTable } from '../widgets/event-table.js';

/** The kinds of actor the list is filtered by, in words. */
/** Each kind of actor: its option in "Done by" and how the list's heading names it. */
const ACTORS: readonly { value: '' | Actor['kind']; label: string; heading: string }[] = [
  { value: '', label: 'Anyone', heading: 'All events' },
  { value: 'owner', label: 'The owner', heading: 'Events by the owner' },
  { value: 'member', label: 'Members', heading: 'Events by members' },
  { value: 'api_key', label: 'API keys', heading: 'Events by API keys' },
  { value: 'operator', label: 'The operator', heading: 'Events by the operator' },
  { value: 'customer', label: 'Customers (portal)', heading: 'Events by customers in the portal' },
];
const actorOf = (value: string | null): '' | Actor['kind'] => ACTORS.find((a) => a.value === value)?.value ?? '';

/**
 * The audit log, newest first, optionally of one license (named by its customer; an unknown ID is
 * said to be one) and of one kind of actor (who did it: owner, members, API keys, operator, customers).
 */
export function EventsPage({ route }: PageProps) {
  const license = route.query.get('license')?.trim() ?? '';
  const actor = actorOf(route.query.get('actor'));
  const [text, setText] = useState(license);
  const [by, setBy] = useState<'' | Actor['kind']>(actor);
  const list = usePaged((cursor) => api.events.list({ license, ...(actor ? { actor } : {}), cursor }), [license, actor]);
  // The license filtered by, by its customer: null while looking, `missing` when no license has the ID.
  const named = useLoad<LicenseOwner | 'missing' | 'all'>(() => (license ? lookUpLicense(license).then((found) => found ?? 'missing') : Promise.resolve('all')), [license]);
  const of = named.data;
  const ready = settled(named);
  return (
    <>
      <PageHeader title="Events" appName={APP_NAME}>
        <p>Everything that happened to licenses, keys, webhooks and the account, newest first, and who did it.</p>
      </PageHeader>
      <Section title="Filter">
        <form
          class="form form-inline"
          aria-label="Filter events"
          onSubmit={(e) => {
            e.preventDefault();
            navigate(href('events', { license: text.trim(), actor: by }));
          }}
        >
          <TextField label="License ID" placeholder="lic_…" spellcheck={false} autoComplete="off" value={text} onValue={setText} />
          <SelectField label="Done by" name="actor" value={by} onValue={setBy} options={ACTORS} />
          <div class="actions">
            <button type="submit" class="btn btn-secondary">
              Filter
            </button>
            {license || actor ? (
              <a class="btn btn-secondary" href={href('events')}>
                Show all
              </a>
            ) : null}
          </div>
        </form>
      </Section>
      <Section title={!license ? ACTORS.find((a) => a.value === actor)!.heading : of && typeof of === 'object' ? `Events of the license of ${of.customer}` : 'Events of one license'} id="event-list">
        {license ? (
          <Facts
            items={[
              ['License ID', <Id value={license} what="license ID" />, 'wide'],
              ...(of && typeof of === 'object' ? ([['License', <a href={href('licenses', license)}>Open the license</a>]] as const) : []),
            ]}
          />
        ) : null}
        <Alert kind="error">{list.error?.message ?? named.error?.message}</Alert>
        {of === 'missing' ? (
          <Alert kind="warning">
            No license has the ID {license}. Check it on the license's page, or <a href={href('events')}>show all events</a>.
          </Alert>
        ) : ready ? (
          <>
            <EventTable
              events={list.data?.data ?? null}
              caption="Events, newest first"
              byWhom
              empty={license ? 'No events of this license yet.' : 'No events yet.'}
              footer={<Pager hasPrevious={list.hasPrevious} nextCursor={list.data?.nextCursor ?? null} onNext={list.next} onPrevious={list.previous} />}
            />
          </>
        ) : (
          <p class="loading" role="status">
            Loading…
          </p>
        )}
      </Section>
    </>
  );
}
