import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { SelectField, TextField } from '../../ui/components/field.js';
import { Form } from '../../ui/components/form.js';
import { Section } from '../../ui/components/layout.js';
import { Table } from '../../ui/components/table.js';
import { settled, useLoad } from '../../ui/hooks.js';
import { loadAll } from '../../ui/paging.js';
import { href } from '../../ui/router.js';
import type { Plan, Product } from '../../ui/types.js';
import type { Page } from '../../ui/api.js';
import { api } from '../api.js';
import { intOrNull } from '../format.js';

const KINDS = [
  { value: 'subscription', label: 'Subscription' },
  { value: 'perpetual', label: 'Perpetual' },
  { value: 'trial', label: 'Trial' },
];

/** The plans of one product and the form that adds one. */
export function PlansOf({ product, initial }: { product: Product; initial?: Plan[] }) {
  const plans = useLoad(() => loadAll((cursor) => api.get<Page<Plan>>(`products/${product.id}/plans`, { cursor })), [product.id], initial);
  const [code, setCode] = useState('');
  const [name, setName] = useState('');
  const [kind, setKind] = useState('subscription');
  const [maxActivations, setMaxActivations] = useState('1');
  const [entitlements, setEntitlements] = useState('');
  const [maxMajor, setMaxMajor] = useState('');
  const [trialDays, setTrialDays] = useState('14');
  const [created, setCreated] = useState<string | null>(null);
  return (
    <Section title={`Plans of ${product.name}`} id={`plans-${product.id}`}>
      <Alert kind="error">{plans.error?.message}</Alert>
      <Table
        caption={`Plans of ${product.name}`}
        hideCaption
        rows={plans.data}
        rowKey={(p) => p.id}
        empty="No plan yet."
        columns={[
          { label: 'Plan', cell: (p) => <a href={href('plans', p.id)}>{p.name}</a> },
          { label: 'Code', cell: (p) => <code>{p.code}</code> },
          { label: 'Kind', cell: (p) => p.kind },
          { label: 'Machines per seat', cell: (p) => p.maxActivations },
          { label: 'Entitlements', cell: (p) => (p.entitlements.length ? p.entitlements.join(', ') : '—') },
          { label: 'Max major', cell: (p) => p.maxMajor ?? 'any' },
        ]}
      />
      {settled(plans) ? <>
      <h3>Add a plan</h3>
      <Alert kind="success">{created}</Alert>
      <Form
        label={`Add a plan to ${product.name}`}
        submitLabel="Add the plan"
        onSubmit={async () => {
          const plan = await api.post<Plan>(`products/${product.id}/plans`, {
            code: code.trim(),
            kind,
            ...(name.trim() ? { name: name.trim() } : {}),
            maxActivations: Number(maxActivations),
            entitlements: entitlements.split(',').map((e) => e.trim()).filter(Boolean),
            maxMajor: intOrNull(maxMajor),
            ...(kind === 'trial' ? { trialDays: Number(trialDays) } : {}),
          });
          setCreated(`Plan ${plan.code} added.`);
          setCode('');
          setName('');
          plans.reload();
        }}
      >
        <div class="grid-2">
          <TextField label="Code" hint="Lowercase slug, unique in the product; cannot change" required pattern="[a-z0-9][a-z0-9_\-]*" value={code} onValue={setCode} />
          <TextField label="Name" hint="Shown to customers; defaults to the code" value={name} onValue={setName} />
          <SelectField label="Kind" hint="Cannot change later" value={kind} onValue={setKind} options={KINDS} />
          <TextField label="Machines per seat" type="number" min={1} required value={maxActivations} onValue={setMaxActivations} />
          <TextField label="Entitlements" hint="Comma-separated, e.g. export, sync" value={entitlements} onValue={setEntitlements} />
          <TextField label="Highest major version covered" type="number" min={0} hint="Empty: every version" value={maxMajor} onValue={setMaxMajor} />
          {kind === 'trial' ? <TextField label="Trial days" type="number" min={1} value={trialDays} onValue={setTrialDays} /> : null}
        </div>
      </Form>
      </> : null}
    </Section>
  );
}
