import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { TextField } from '../../ui/components/field.js';
import { Form } from '../../ui/components/form.js';
import { PageHeader, Pager, Section } from '../../ui/components/layout.js';
import { Table } from '../../ui/components/table.js';
import { DateTime } from '../../ui/components/time.js';
import type { Page } from '../../ui/api.js';
import { usePaged } from '../../ui/paging.js';
import { settled } from '../../ui/hooks.js';
import { href, navigate } from '../../ui/router.js';
import type { Product } from '../../ui/types.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';

/** Products: the list and the creation form. */
export function ProductsPage() {
  const list = usePaged((cursor) => api.get<Page<Product>>('products', { cursor }), []);
  const [name, setName] = useState('');
  const [keyPrefix, setKeyPrefix] = useState('');
  const [graceDays, setGraceDays] = useState('7');
  const [offlineDays, setOfflineDays] = useState('14');
  return (
    <>
      <PageHeader title="Products" appName={APP_NAME}>
        <p>Each product has its own signing keys, plans and license-key prefix.</p>
      </PageHeader>
      <Section title="Your products">
        <Alert kind="error">{list.error?.message}</Alert>
        <Table
          caption="Products"
          hideCaption
          rows={list.data?.data ?? null}
          rowKey={(p) => p.id}
          empty="No product yet: create the first one below."
          columns={[
            { label: 'Name', cell: (p) => <a href={href('products', p.id)}>{p.name}</a> },
            { label: 'ID', cell: (p) => <code>{p.id}</code> },
            { label: 'Key prefix', cell: (p) => <code>{p.keyPrefix}</code> },
            { label: 'Grace / offline days', cell: (p) => `${p.graceDays} / ${p.offlineDays}` },
            { label: 'Created', cell: (p) => <DateTime value={p.createdAt} date />, nowrap: true },
          ]}
        />
        <Pager hasPrevious={list.hasPrevious} nextCursor={list.data?.nextCursor ?? null} onNext={list.next} onPrevious={list.previous} />
      </Section>
      {settled(list) ? <Section title="Create a product">
        <Form
          label="Create a product"
          submitLabel="Create the product"
          onSubmit={async () => {
            const product = await api.post<Product>('products', {
              name: name.trim(),
              keyPrefix: keyPrefix.trim(),
              graceDays: Number(graceDays),
              offlineDays: Number(offlineDays),
            });
            navigate(href('products', product.id));
          }}
        >
          <TextField label="Name" required value={name} onValue={setName} />
          <TextField label="License key prefix" hint="License keys start with it, e.g. ACME-" required value={keyPrefix} onValue={setKeyPrefix} />
          <div class="grid-2">
            <TextField label="Grace days" type="number" min={0} hint="Days added to the paid period before a license stops working" required value={graceDays} onValue={setGraceDays} />
            <TextField label="Offline days" type="number" min={1} max={365} hint="How long a machine works without reaching the server" required value={offlineDays} onValue={setOfflineDays} />
          </div>
        </Form>
      </Section> : null}
    </>
  );
}
