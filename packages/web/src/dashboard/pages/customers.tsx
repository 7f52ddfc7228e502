import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { TextField } from '../../ui/components/field.js';
import { PageHeader, Pager, Section } from '../../ui/components/layout.js';
import { LicenseStatusBadge } from '../../ui/components/license-status.js';
import { Table } from '../../ui/components/table.js';
import { DateTime } from '../../ui/components/time.js';
import { useLoad } from '../../ui/hooks.js';
import { usePaged } from '../../ui/paging.js';
import { href, navigate, type PageProps } from '../../ui/router.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { customerName, hasOwnName } from '../format.js';
import { CustomerCell } from '../widgets/customer.js';

/** Customers: search by e-mail or name. */
export function CustomersPage({ route }: PageProps) {
  const q = route.query.get('q') ?? '';
  const [text, setText] = useState(q);
  const list = usePaged((cursor) => api.customers.list({ q: q.trim(), cursor }), [q]);
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
            { label: 'Customer', cell: (c) => <CustomerCell customer={c} to={href('customers', c.id)} /> },
            { label: 'Licenses', cell: (c) => c.licenseCount },
          ]}
        />
        <Pager hasPrevious={list.hasPrevious} nextCursor={list.data?.nextCursor ?? null} onNext={list.next} onPrevious={list.previous} />
      </Section>
    </>
  );
}

/** One customer and their licenses. */
export function CustomerPage({ params }: PageProps) {
  const id = params.id!;
  const customer = useLoad(() => api.customers.get(id), [id]);
  const c = customer.data;
  return (
    <>
      <PageHeader title={c ? customerName(c) : 'Customer'} appName={APP_NAME}>
        <p>
          <a href={href('customers')}>All customers</a>
          {c && hasOwnName(c) ? ` · ${c.email}` : null}
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
            { label: 'Status', cell: (l) => <LicenseStatusBadge status={l.status} /> },
            { label: 'Machines', cell: (l) => `${l.activationCount} / ${l.activationLimit}` },
            { label: 'Valid until', cell: (l) => <DateTime value={l.validUntil} empty="no end" date />, nowrap: true },
          ]}
        />
      </Section>
    </>
  );
}
