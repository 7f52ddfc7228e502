import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { CheckboxField, SelectField, TextField } from '../../ui/components/field.js';
import { Form } from '../../ui/components/form.js';
import { PageHeader, Section } from '../../ui/components/layout.js';
import { settled, useLoad } from '../../ui/hooks.js';
import { loadAll } from '../../ui/paging.js';
import { href, navigate } from '../../ui/router.js';
import type { LicenseDetail, Plan } from '../../ui/types.js';
import type { Page } from '../../ui/api.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { endOfDay } from '../format.js';
import { useProducts } from './licenses.js';

/** Creates a license by hand (a sale outside the payment provider, a gift, a test). */
export function LicenseNewPage() {
  const products = useProducts();
  const [product, setProduct] = useState('');
  const productId = product || products.data?.[0]?.id || '';
  const plans = useLoad(() => (productId ? loadAll((cursor) => api.get<Page<Plan>>(`products/${productId}/plans`, { cursor })) : Promise.resolve([])), [productId]);
  const [planId, setPlanId] = useState('');
  const plan = plans.data?.find((p) => p.id === planId) ?? plans.data?.[0];
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [seats, setSeats] = useState('1');
  const [paidUntil, setPaidUntil] = useState('');
  const [sendEmail, setSendEmail] = useState(false);
  const [locale, setLocale] = useState('');
  const noPlans = plans.data !== null && plans.data.length === 0;
  return (
    <>
      <PageHeader title="New license" appName={APP_NAME}>
        <p>
          <a href={href('licenses')}>All licenses</a>
        </p>
      </PageHeader>
      <Alert kind="error">{products.error?.message ?? plans.error?.message}</Alert>
      {!settled(products, plans) ? null : products.data?.length === 0 ? (
        <p class="empty">
          Create a <a href={href('products')}>product</a> and a plan first.
        </p>
      ) : (
        <Section title="License">
          {noPlans ? (
            <Alert kind="warning">
              This product has no plan yet: <a href={href('plans', { product: productId })}>add a plan</a>.
            </Alert>
          ) : null}
          <Form
            label="New license"
            submitLabel="Create the license"
            onSubmit={async () => {
              if (!plan) throw new Error('Choose a plan.');
              const license = await api.post<LicenseDetail>('licenses', {
                plan: plan.id,
                email: email.trim(),
                ...(name.trim() ? { name: name.trim() } : {}),
                seats: Number(seats),
                ...(plan.kind === 'subscription' && paidUntil ? { paidUntil: endOfDay(paidUntil) } : {}),
                sendEmail,
                ...(locale ? { locale } : {}),
              });
              navigate(href('licenses', license.id));
            }}
          >
            <div class="grid-2">
              <SelectField
                label="Product"
                value={productId}
                onValue={(v) => {
                  setProduct(v);
                  setPlanId('');
                }}
                options={(products.data ?? []).map((p) => ({ value: p.id, label: p.name }))}
              />
              <SelectField label="Plan" value={plan?.id ?? ''} onValue={setPlanId} options={(plans.data ?? []).map((p) => ({ value: p.id, label: `${p.name} (${p.kind})` }))} />
              <TextField label="Customer e-mail" type="email" required value={email} onValue={setEmail} />
              <TextField label="Customer name" value={name} onValue={setName} />
              <TextField label="Seats" type="number" min={1} required value={seats} onValue={setSeats} />
              {plan?.kind === 'subscription' ? (
                <TextField label="Paid until" type="date" required hint="End of the paid period (UTC day)" value={paidUntil} onValue={setPaidUntil} />
              ) : null}
              <SelectField
                label="Language of e-mails"
                value={locale}
                onValue={setLocale}
                options={[
                  { value: '', label: "The account's default" },
                  { value: 'en', label: 'English' },
                  { value: 'fr', label: 'French' },
                ]}
              />
            </div>
            <CheckboxField label="E-mail the license key to the customer" checked={sendEmail} onChecked={setSendEmail} />
          </Form>
        </Section>
      )}
    </>
  );
}
