import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { TextField } from '../../ui/components/field.js';
import { PageHeader, Pager, Section } from '../../ui/components/layout.js';
import { usePaged } from '../../ui/paging.js';
import { href, navigate, type Route } from '../../ui/router.js';
import type { AuditEvent } from '../../ui/types.js';
import type { Page } from '../../ui/api.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { EventTable } from '../widgets/event-table.js';

/** The audit log, newest first, optionally of one license. */
export function EventsPage({ route }: { route: Route }) {
  const license = route.params.get('license') ?? '';
  const [text, setText] = useState(license);
  const list = usePaged((cursor) => api.get<Page<AuditEvent>>('events', { license, cursor }), [license]);
  return (
    <>
      <PageHeader title="Events" appName={APP_NAME}>
        <p>Everything that happened to licenses, keys and webhooks, newest first.</p>
      </PageHeader>
      <Section title="Filter">
        <form
          class="form form-inline"
          aria-label="Filter events"
          onSubmit={(e) => {
            e.preventDefault();
            navigate(href('events', { license: text.trim() }));
          }}
        >
          <TextField label="License ID" placeholder="lic_…" value={text} onValue={setText} />
          <div class="actions">
            <button type="submit" class="btn btn-secondary">
              Filter
            </button>
            {license ? (
              <a class="btn btn-secondary" href={href('events')}>
                Show all
              </a>
            ) : null}
          </div>
        </form>
      </Section>
      <Section title={license ? `Events of ${license}` : 'All events'}>
        <Alert kind="error">{list.error?.message}</Alert>
        <EventTable events={list.data?.data ?? null} caption="Events, newest first" />
        <Pager hasPrevious={list.hasPrevious} nextCursor={list.data?.nextCursor ?? null} onNext={list.next} onPrevious={list.previous} />
      </Section>
    </>
  );
}
