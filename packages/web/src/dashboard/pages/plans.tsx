import { useEffect, useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { SelectField, TextField } from '../../ui/components/field.js';
import { Form } from '../../ui/components/form.js';
import { Facts, PageHeader, Section } from '../../ui/components/layout.js';
import { useLoad } from '../../ui/hooks.js';
import { href, navigate, type PageProps } from '../../ui/router.js';
import type { PlanView } from '../../ui/types.js';
import { Id } from '../../ui/components/copy.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { intOrNull } from '../format.js';
import { PlansOf } from '../widgets/plans-of.js';
import { LeaseFields, leaseBody, seatSummary, useLeaseFields } from '../widgets/lease-fields.js';

/** Plans, product by product. */
export function PlansPage({ route }: PageProps) {
  const products = useLoad(() => api.products.all(), []);
  const chosen = route.query.get('product') ?? products.data?.[0]?.id ?? '';
  const product = products.data?.find((p) => p.id === chosen);
  return (
    <>
      <PageHeader title="Plans" appName={APP_NAME}>
        <p>A plan sets what a license gives: machines per seat, entitlements, the versions covered, the offline period.</p>
      </PageHeader>
      <Alert kind="error">{products.error?.message}</Alert>
      {products.data && products.data.length === 0 ? (
        <p class="empty">
          Plans belong to a product: <a href={href('products')}>create a product</a> first.
        </p>
      ) : null}
      {products.data && products.data.length > 1 ? (
        <div class="form filter-bar">
          <SelectField label="Product" value={chosen} onValue={(v) => navigate(href('plans', { product: v }))} options={products.data.map((p) => ({ value: p.id, label: p.name }))} />
        </div>
      ) : null}
      {product ? <PlansOf product={product} /> : null}
    </>
  );
}

/** One plan: what it is, and the fields that can change. */
export function PlanPage({ params }: PageProps) {
  const id = params.id!;
  const plan = useLoad(() => api.plans.get(id), [id]);
  const p = plan.data;
  return (
    <>
      <PageHeader title={p ? `Plan ${p.name}` : 'Plan'} appName={APP_NAME}>
        <p>
          <a href={href('plans', p?.product ? { product: p.product } : {})}>All plans</a>
        </p>
      </PageHeader>
      <Alert kind="error">{plan.error?.message}</Alert>
      {p ? (
        <Section title="Plan">
          <Facts
            items={[
              ['Code (fixed)', <code>{p.code}</code>],
              ['Kind (fixed)', p.kind],
              ['Seats (fixed)', seatSummary(p), 'wide'],
              ['Plan ID', <Id value={p.id} what="plan ID" />, 'wide'],
            ]}
          />
          <EditPlan plan={p} onSaved={plan.set} />
        </Section>
      ) : null}
    </>
  );
}

function EditPlan({ plan, onSaved }: { plan: PlanView; onSaved: (p: PlanView) => void }) {
  const [name, setName] = useState(plan.name);
  const [maxActivations, setMaxActivations] = useState(String(plan.maxActivations));
  const [entitlements, setEntitlements] = useState(plan.entitlements.join(', '));
  const [maxMajor, setMaxMajor] = useState(plan.maxMajor === null ? '' : String(plan.maxMajor));
  const [trialDays, setTrialDays] = useState(String(plan.trialDays));
  const [offlineDays, setOfflineDays] = useState(plan.offlineDays === null ? '' : String(plan.offlineDays));
  const [lease, setLease] = useLeaseFields(plan);
  const floating = plan.seatMode === 'floating';
  const [saved, setSaved] = useState(false);
  useEffect(() => setSaved(false), [name, maxActivations, entitlements, maxMajor, trialDays, offlineDays, lease]);
  return (
    <>
      <Alert kind="success">{saved ? 'Saved. Licenses get the new terms at their next certificate refresh.' : null}</Alert>
      <Form
        label="Edit the plan"
        submitLabel="Save the plan"
        onSubmit={async () => {
          const updated = await api.plans.update(plan.id, {
            name: name.trim(),
            maxActivations: Number(maxActivations),
            entitlements: entitlements.split(',').map((e) => e.trim()).filter(Boolean),
            maxMajor: intOrNull(maxMajor),
            ...(plan.kind === 'trial' ? { trialDays: Number(trialDays) } : {}),
            offlineDays: intOrNull(offlineDays),
            ...(floating ? leaseBody(lease) : {}),
          });
          onSaved(updated);
          setSaved(true);
        }}
      >
        <div class="grid-2">
          <TextField label="Name" name="name" required maxLength={200} value={name} onValue={setName} />
          <TextField label="Machines per seat" name="maxActivations" type="number" min={1} max={100000} required value={maxActivations} onValue={setMaxActivations} />
          <TextField label="Entitlements" name="entitlements" hint="Comma-separated" value={entitlements} onValue={setEntitlements} />
          <TextField label="Highest major version covered" name="maxMajor" type="number" min={0} hint="Empty: every version" value={maxMajor} onValue={setMaxMajor} />
          {plan.kind === 'trial' ? <TextField label="Trial days" name="trialDays" type="number" min={1} max={3650} value={trialDays} onValue={setTrialDays} /> : null}
          <TextField label="Offline days" name="offlineDays" type="number" min={1} max={365} hint="Empty: the product's value" value={offlineDays} onValue={setOfflineDays} />
          {floating ? <LeaseFields value={lease} onValue={setLease} /> : null}
        </div>
      </Form>
    </>
  );
}
