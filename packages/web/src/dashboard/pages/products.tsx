import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { TextField } from '../../ui/components/field.js';
import { Form } from '../../ui/components/form.js';
import { PageHeader, Pager, Section } from '../../ui/components/layout.js';
import { Table } from '../../ui/components/table.js';
import { DateTime } from '../../ui/components/time.js';
import { settled } from '../../ui/hooks.js';
import { usePaged } from '../../ui/paging.js';
import { href, navigate } from '../../ui/router.js';
import { Id } from '../../ui/components/copy.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { KEY_PREFIX } from '../format.js';

/** Products: the list and the creation form. */
export function ProductsPage() {
  const list = usePaged((cursor) => api.products.list({ cursor }), []);
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
            { label: 'ID', cell: (p) => <Id value={p.id} what={`ID of ${p.name}`} />, stack: true },
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
            const product = await api.products.create({
              name: name.trim(),
              keyPrefix: keyPrefix.trim(),
              graceDays: Number(graceDays),
              offlineDays: Number(offlineDays),
            });
            navigate(href('products', product.id));
          }}
        >
          <TextField label="Name" name="name" required maxLength={200} value={name} onValue={setName} />
          <TextField label="License key prefix" name="keyPrefix" hint={KEY_PREFIX.hint} rule={KEY_PREFIX.rule} pattern={KEY_PREFIX.pattern} maxLength={16} required value={keyPrefix} onValue={setKeyPrefix} />
          <div class="grid-2">
            <TextField label="Grace days" name="graceDays" type="number" min={0} max={365} hint="Days added to the paid period before a license stops working" required value={graceDays} onValue={setGraceDays} />
            <TextField label="Offline days" name="offlineDays" type="number" min={1} max={365} hint="How long a machine works without reaching the server" required value={offlineDays} onValue={setOfflineDays} />
          </div>
        </Form>
      </Section> : null}
    </>
  );
}
