import { useEffect, useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { TextField } from '../../ui/components/field.js';
import { Form } from '../../ui/components/form.js';
import { Facts, PageHeader, Section } from '../../ui/components/layout.js';
import { DateTime } from '../../ui/components/time.js';
import { settled, useLoad } from '../../ui/hooks.js';
import { loadAll } from '../../ui/paging.js';
import type { Page } from '../../ui/api.js';
import { href, type Route } from '../../ui/router.js';
import type { Plan, Product, SigningKey } from '../../ui/types.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { PlansOf } from '../widgets/plans-of.js';
import { SigningKeys } from '../widgets/signing-keys.js';

/** One product: its settings, signing keys (rotation, export) and plans. */
export function ProductPage({ route }: { route: Route }) {
  const id = route.parts[1]!;
  const product = useLoad(() => api.get<Product>(`products/${id}`), [id]);
  // Keys and plans load with the product, so the page appears in one piece (nothing moves).
  const parts = useLoad(
    () => Promise.all([api.get<Page<SigningKey>>(`products/${id}/keys`), loadAll((cursor) => api.get<Page<Plan>>(`products/${id}/plans`, { cursor }))]),
    [id],
  );
  const p = settled(product, parts) ? product.data : null;
  return (
    <>
      <PageHeader title={p ? p.name : 'Product'} appName={APP_NAME}>
        <p>
          <a href={href('products')}>All products</a>
        </p>
      </PageHeader>
      <Alert kind="error">{product.error?.message ?? parts.error?.message}</Alert>
      {p ? (
        <>
          <Section title="Details">
            <Facts
              items={[
                ['Product ID (public, used by the client SDK)', <code>{p.id}</code>],
                ['Key prefix', <code>{p.keyPrefix}</code>],
                ['Created', <DateTime value={p.createdAt} />],
              ]}
            />
            <EditProduct product={p} onSaved={product.set} />
          </Section>
          <SigningKeys product={p} {...(parts.data ? { initial: parts.data[0] } : {})} />
          <PlansOf product={p} {...(parts.data ? { initial: parts.data[1] } : {})} />
        </>
      ) : null}
    </>
  );
}

function EditProduct({ product, onSaved }: { product: Product; onSaved: (p: Product) => void }) {
  const [name, setName] = useState(product.name);
  const [keyPrefix, setKeyPrefix] = useState(product.keyPrefix);
  const [graceDays, setGraceDays] = useState(String(product.graceDays));
  const [offlineDays, setOfflineDays] = useState(String(product.offlineDays));
  const [saved, setSaved] = useState(false);
  useEffect(() => setSaved(false), [name, keyPrefix, graceDays, offlineDays]);
  return (
    <>
      <h3>Edit</h3>
      <Alert kind="success">{saved ? 'Saved.' : null}</Alert>
      <Form
        label="Edit the product"
        submitLabel="Save the product"
        variant="secondary"
        onSubmit={async () => {
          const updated = await api.patch<Product>(`products/${product.id}`, {
            name: name.trim(),
            keyPrefix: keyPrefix.trim(),
            graceDays: Number(graceDays),
            offlineDays: Number(offlineDays),
          });
          onSaved(updated);
          setSaved(true);
        }}
      >
        <div class="grid-2">
          <TextField label="Name" required value={name} onValue={setName} />
          <TextField label="License key prefix" hint="Applies to keys issued from now on" required value={keyPrefix} onValue={setKeyPrefix} />
          <TextField label="Grace days" type="number" min={0} required value={graceDays} onValue={setGraceDays} />
          <TextField label="Offline days" type="number" min={1} max={365} required value={offlineDays} onValue={setOfflineDays} />
        </div>
      </Form>
    </>
  );
}
