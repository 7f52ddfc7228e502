import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { TextField } from '../../ui/components/field.js';
import { Badge, PageHeader, Pager, Section } from '../../ui/components/layout.js';
import { Table } from '../../ui/components/table.js';
import { DateTime } from '../../ui/components/time.js';
import { useLoad } from '../../ui/hooks.js';
import { usePaged } from '../../ui/paging.js';
import { href, navigate, type Route } from '../../ui/router.js';
import type { Customer, CustomerDetail } from '../../ui/types.js';
import type { Page } from '../../ui/api.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { STATUS_LABEL, STATUS_TONE } from '../format.js';

/** Customers: search by e-mail or name. */
export function CustomersPage({ route }: { route: Route }) {
  const q = route.params.get('q') ?? '';
  const [text, setText] = useState(q);
  const list = usePaged((cursor) => api.get<Page<Customer>>('customers', { q: q.trim(), cursor }), [q]);
  return (
    <>
      <PageHeader title="Customers" appName={APP_NAME}>
        <p>Customers are created with their first license, by hand or from a payment.</p>
      </PageHeader>
      <Section title="Find customers">
        <form
          class="form form-inline"
          role="search"
          aria-label="Customers"
          onSubmit={(e) => {
            e.preventDefault();
            navigate(href('customers', { q: text }));
          }}
        >
          <TextField label="E-mail or name" type="search" value={text} onValue={setText} />
          <div class="actions">
            <button type="submit" class="btn btn-secondary">
              Search
            </button>
          </div>
        </form>
      </Section>
      <Section title="Results">
        <Alert kind="error">{list.error?.message}</Alert>
        <Table
          caption="Customers, newest first"
          hideCaption
          rows={list.data?.data ?? null}
          rowKey={(c) => c.id}
          empty={q ? 'No customer matches.' : 'No customer yet.'}
          columns={[
            { label: 'Name', cell: (c) => <a href={href('customers', c.id)}>{c.name || c.email}</a> },
            { label: 'E-mail', cell: (c) => c.email },
            { label: 'Licenses', cell: (c) => c.licenseCount },
          ]}
        />
        <Pager hasPrevious={list.hasPrevious} nextCursor={list.data?.nextCursor ?? null} onNext={list.next} onPrevious={list.previous} />
      </Section>
    </>
  );
}

/** One customer and their licenses. */
export function CustomerPage({ route }: { route: Route }) {
  const id = route.parts[1]!;
  const customer = useLoad(() => api.get<CustomerDetail>(`customers/${id}`), [id]);
  const c = customer.data;
  return (
    <>
      <PageHeader title={c ? c.name || c.email : 'Customer'} appName={APP_NAME}>
        <p>
          <a href={href('customers')}>All customers</a>
          {c ? ` · ${c.email}` : null}
        </p>
      </PageHeader>
      <Alert kind="error">{customer.error?.message}</Alert>
      <Section title="Licenses">
        <Table
          caption="Licenses of the customer"
          hideCaption
          rows={c?.licenses ?? null}
          rowKey={(l) => l.id}
          empty="No license."
          columns={[
            { label: 'License', cell: (l) => <a href={href('licenses', l.id)}>{l.planName}</a> },
            { label: 'Status', cell: (l) => <Badge tone={STATUS_TONE[l.status]}>{STATUS_LABEL[l.status]}</Badge> },
            { label: 'Machines', cell: (l) => `${l.activationCount} / ${l.activationLimit}` },
            { label: 'Valid until', cell: (l) => <DateTime value={l.validUntil} empty="no end" date />, nowrap: true },
          ]}
        />
      </Section>
    </>
  );
}
