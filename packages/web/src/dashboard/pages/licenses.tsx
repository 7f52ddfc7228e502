import { LICENSE_STATUSES, isWellFormedLicenseKey } from '@svc-licensing/cert-format';
import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { SelectField, TextField } from '../../ui/components/field.js';
import { PageHeader, Pager, Section } from '../../ui/components/layout.js';
import { LICENSE_STATUS_LABEL, LicenseStatusBadge } from '../../ui/components/license-status.js';
import { Table } from '../../ui/components/table.js';
import { DateTime } from '../../ui/components/time.js';
import { settled, useLoad } from '../../ui/hooks.js';
import { usePaged } from '../../ui/paging.js';
import { href, navigate, type PageProps } from '../../ui/router.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { CustomerCell } from '../widgets/customer.js';

/** Licenses: search by e-mail, name or complete key; filter by product and status; cursor paging. */
export function LicensesPage({ route }: PageProps) {
  const q = route.query.get('q') ?? '';
  const product = route.query.get('product') ?? '';
  const status = route.query.get('status') ?? '';
  const [text, setText] = useState(q);
  const products = useLoad(() => api.products.all(), []);
  // A complete license key (as cert-format reads one, in any case and spacing) is searched with `key`, anything else with `q`.
  const search = q.trim().replace(/\s+/g, '');
  const query = isWellFormedLicenseKey(search) ? { key: search } : { q: q.trim() };
  const list = usePaged((cursor) => api.licenses.list({ ...query, product, status, cursor }), [q, product, status]);
  const productName = (id: string) => products.data?.find((p) => p.id === id)?.name ?? id;
  const go = (next: Record<string, string>) => navigate(href('licenses', { q, product, status, ...next }));
  return (
    <>
      <PageHeader title="Licenses" appName={APP_NAME} actions={<a class="btn btn-primary" href={href('licenses', 'new')}>New license</a>}>
        <p>Search by customer e-mail or name, or paste a complete license key.</p>
      </PageHeader>
      <Section title="Find licenses">
        <form
          class="form form-inline"
          role="search"
          aria-label="Licenses"
          onSubmit={(e) => {
            e.preventDefault();
            go({ q: text });
          }}
        >
          <TextField label="E-mail, name or key" type="search" value={text} onValue={setText} />
          <SelectField
            label="Product"
            value={product}
            onValue={(v) => go({ product: v })}
            options={[{ value: '', label: 'All products' }, ...(products.data ?? []).map((p) => ({ value: p.id, label: p.name }))]}
          />
          <SelectField
            label="Status"
            value={status}
            onValue={(v) => go({ status: v })}
            options={[{ value: '', label: 'Any status' }, ...LICENSE_STATUSES.map((s) => ({ value: s, label: LICENSE_STATUS_LABEL[s] }))]}
          />
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
          caption="Licenses, newest first"
          hideCaption
          // Rows wait for the product names too, or the product column would change width under them.
          rows={settled(products) ? (list.data?.data ?? null) : null}
          rowKey={(l) => l.id}
          empty={q || product || status ? 'No license matches.' : 'No license yet.'}
          columns={[
            { label: 'Customer', cell: (l) => <CustomerCell customer={l.customer} to={href('licenses', l.id)} /> },
            { label: 'Product', cell: (l) => productName(l.product) },
            { label: 'Plan', cell: (l) => l.planName },
            { label: 'Status', cell: (l) => <LicenseStatusBadge status={l.status} /> },
            { label: 'Machines', cell: (l) => (l.seatMode === 'floating' ? `${l.liveLeases ?? 0} / ${l.activationLimit} running` : `${l.activationCount} / ${l.activationLimit}`) },
            { label: 'Valid until', cell: (l) => <DateTime value={l.validUntil} empty="no end" date />, nowrap: true },
          ]}
        />
        {/* With the rows, not before them: a pager drawn while the rows wait for the product names would move down. */}
        {settled(products) ? <Pager hasPrevious={list.hasPrevious} nextCursor={list.data?.nextCursor ?? null} onNext={list.next} onPrevious={list.previous} /> : null}
      </Section>
    </>
  );
}
