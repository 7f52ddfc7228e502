import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { SelectField, TextField } from '../../ui/components/field.js';
import { Form } from '../../ui/components/form.js';
import { Badge, PageHeader, Pager, Section } from '../../ui/components/layout.js';
import { Table } from '../../ui/components/table.js';
import { DateTime } from '../../ui/components/time.js';
import { settled, useLoad } from '../../ui/hooks.js';
import { loadAll, usePaged } from '../../ui/paging.js';
import { href, navigate, type Route } from '../../ui/router.js';
import { LICENSE_STATUSES, type License, type Product } from '../../ui/types.js';
import type { Page } from '../../ui/api.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { STATUS_LABEL, STATUS_TONE } from '../format.js';

/** A complete license key (prefix, then four groups of five characters): searched with `key`, anything else with `q`. */
const LOOKS_LIKE_KEY = /^[^\s@]*([A-Z0-9]{5}-){3}[A-Z0-9]{5}$/i;

export function useProducts() {
  return useLoad(() => loadAll((cursor) => api.get<Page<Product>>('products', { cursor })), []);
}

/** Licenses: search by e-mail, name or complete key; filter by product and status; cursor paging. */
export function LicensesPage({ route }: { route: Route }) {
  const q = route.params.get('q') ?? '';
  const product = route.params.get('product') ?? '';
  const status = route.params.get('status') ?? '';
  const [text, setText] = useState(q);
  const products = useProducts();
  const search = q.trim().replace(/\s+/g, '');
  const query = LOOKS_LIKE_KEY.test(search) ? { key: search } : { q: q.trim() };
  const list = usePaged((cursor) => api.get<Page<License>>('licenses', { ...query, product, status, cursor }), [q, product, status]);
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
            options={[{ value: '', label: 'Any status' }, ...LICENSE_STATUSES.map((s) => ({ value: s, label: STATUS_LABEL[s] }))]}
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
            { label: 'Customer', cell: (l) => <a href={href('licenses', l.id)}>{l.customer.name || l.customer.email}</a> },
            { label: 'E-mail', cell: (l) => l.customer.email },
            { label: 'Product', cell: (l) => productName(l.product) },
            { label: 'Plan', cell: (l) => l.planName },
            { label: 'Status', cell: (l) => <Badge tone={STATUS_TONE[l.status]}>{STATUS_LABEL[l.status]}</Badge> },
            { label: 'Machines', cell: (l) => `${l.activationCount} / ${l.activationLimit}` },
            { label: 'Valid until', cell: (l) => <DateTime value={l.validUntil} empty="no end" date />, nowrap: true },
          ]}
        />
        <Pager hasPrevious={list.hasPrevious} nextCursor={list.data?.nextCursor ?? null} onNext={list.next} onPrevious={list.previous} />
      </Section>
    </>
  );
}
