import { useEffect, useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { TextField } from '../../ui/components/field.js';
import { Form } from '../../ui/components/form.js';
import { Facts, PageHeader, Section } from '../../ui/components/layout.js';
import { DateTime } from '../../ui/components/time.js';
import { settled, useLoad } from '../../ui/hooks.js';
import { href, type PageProps } from '../../ui/router.js';
import type { ProductView } from '../../ui/types.js';
import { Id } from '../../ui/components/copy.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { KEY_PREFIX } from '../format.js';
import { PlansOf } from '../widgets/plans-of.js';
import { RevocationList } from '../widgets/revocation-list.js';
import { SigningKeys } from '../widgets/signing-keys.js';

/** One product: its settings, signing keys (rotation, export), plans and revocation list (download). */
export function ProductPage({ params }: PageProps) {
  const id = params.id!;
  const product = useLoad(() => api.products.get(id), [id]);
  // Keys and plans load with the product, so the page appears in one piece (nothing moves).
  const parts = useLoad(
    () => Promise.all([api.signingKeys.list(id), api.plans.all(id), api.revocations.get(id)]),
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
                ['Product ID (public, used by the client SDK)', <Id value={p.id} what="product ID" />, 'wide'],
                ['Key prefix', <code>{p.keyPrefix}</code>],
                ['Created', <DateTime value={p.createdAt} />],
              ]}
            />
            <EditProduct product={p} onSaved={product.set} />
          </Section>
          <SigningKeys product={p} {...(parts.data ? { initial: parts.data[0] } : {})} />
          <PlansOf product={p} {...(parts.data ? { initial: parts.data[1] } : {})} />
          <RevocationList product={p} {...(parts.data ? { initial: parts.data[2] } : {})} />
        </>
      ) : null}
    </>
  );
}

function EditProduct({ product, onSaved }: { product: ProductView; onSaved: (p: ProductView) => void }) {
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
          const updated = await api.products.update(product.id, {
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
          <TextField label="Name" name="name" required maxLength={200} value={name} onValue={setName} />
          <TextField label="License key prefix" name="keyPrefix" hint={`${KEY_PREFIX.hint}; applies to keys issued from now on`} rule={KEY_PREFIX.rule} pattern={KEY_PREFIX.pattern} maxLength={16} required value={keyPrefix} onValue={setKeyPrefix} />
          <TextField label="Grace days" name="graceDays" type="number" min={0} max={365} required value={graceDays} onValue={setGraceDays} />
          <TextField label="Offline days" name="offlineDays" type="number" min={1} max={365} required value={offlineDays} onValue={setOfflineDays} />
        </div>
      </Form>
    </>
  );
}
