import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { CheckboxField, SelectField, TextField } from '../../ui/components/field.js';
import { FieldProblem, Form } from '../../ui/components/form.js';
import { PageHeader, Section } from '../../ui/components/layout.js';
import { settled, useLoad } from '../../ui/hooks.js';
import { href, navigate } from '../../ui/router.js';
import type { CreateLicenseInput, PlanView } from '../../ui/types.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { endOfDay } from '../format.js';

/** Creates a license by hand (a sale outside the payment provider, a gift, a test). */
export function LicenseNewPage() {
  const products = useLoad(() => api.products.all(), []);
  const [product, setProduct] = useState('');
  const productId = product || products.data?.[0]?.id || '';
  const plans = useLoad(() => (productId ? api.plans.all(productId) : Promise.resolve<PlanView[]>([])), [productId]);
  const [planId, setPlanId] = useState('');
  const plan = plans.data?.find((p) => p.id === planId) ?? plans.data?.[0];
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [seats, setSeats] = useState('1');
  const [paidUntil, setPaidUntil] = useState('');
  const [sendEmail, setSendEmail] = useState(false);
  const [locale, setLocale] = useState<NonNullable<CreateLicenseInput['locale']> | ''>('');
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
              if (!plan) throw new FieldProblem('plan', 'Choose a plan: this product has none yet.');
              const license = await api.licenses.create({
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
              <SelectField label="Plan" name="plan" required value={plan?.id ?? ''} onValue={setPlanId} options={(plans.data ?? []).map((p) => ({ value: p.id, label: `${p.name} (${p.kind})` }))} />
              <TextField label="Customer e-mail" name="email" type="email" autoComplete="off" required value={email} onValue={setEmail} />
              <TextField label="Customer name" name="name" hint="Optional; without it the customer is named by their e-mail" maxLength={200} value={name} onValue={setName} />
              <TextField label="Seats" name="seats" type="number" min={1} max={100000} required value={seats} onValue={setSeats} />
              {plan?.kind === 'subscription' ? (
                <TextField label="Paid until" name="paidUntil" type="date" required hint="End of the paid period (UTC day)" value={paidUntil} onValue={setPaidUntil} />
              ) : null}
              <SelectField
                label="Language of e-mails"
                name="locale"
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
