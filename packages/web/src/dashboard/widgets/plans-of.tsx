import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { SelectField, TextField } from '../../ui/components/field.js';
import { Form } from '../../ui/components/form.js';
import { Section } from '../../ui/components/layout.js';
import { Table } from '../../ui/components/table.js';
import { settled, useLoad } from '../../ui/hooks.js';
import { href } from '../../ui/router.js';
import type { PlanView, ProductView } from '../../ui/types.js';
import { api } from '../api.js';
import { PLAN_CODE, intOrNull } from '../format.js';
import { LeaseFields, leaseBody, seatSummary, useLeaseFields } from './lease-fields.js';

const KINDS: { value: PlanView['kind']; label: string }[] = [
  { value: 'subscription', label: 'Subscription' },
  { value: 'perpetual', label: 'Perpetual' },
  { value: 'trial', label: 'Trial' },
];

const SEAT_MODES: { value: PlanView['seatMode']; label: string }[] = [
  { value: 'machine', label: 'Machine' },
  { value: 'floating', label: 'Floating' },
];

/** The plans of one product and the form that adds one. */
export function PlansOf({ product, initial }: { product: ProductView; initial?: PlanView[] }) {
  const plans = useLoad(() => api.plans.all(product.id), [product.id], initial);
  const [code, setCode] = useState('');
  const [name, setName] = useState('');
  const [kind, setKind] = useState<PlanView['kind']>('subscription');
  const [maxActivations, setMaxActivations] = useState('1');
  const [entitlements, setEntitlements] = useState('');
  const [maxMajor, setMaxMajor] = useState('');
  const [trialDays, setTrialDays] = useState('14');
  const [seatMode, setSeatMode] = useState<PlanView['seatMode']>('machine');
  const [lease, setLease] = useLeaseFields();
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
          { label: 'Seats', cell: (p) => seatSummary(p) },
        ]}
      />
      {settled(plans) ? <>
      <h3>Add a plan</h3>
      <Alert kind="success">{created}</Alert>
      <Form
        label={`Add a plan to ${product.name}`}
        submitLabel="Add the plan"
        onSubmit={async () => {
          const plan = await api.plans.create(product.id, {
            code: code.trim(),
            kind,
            ...(name.trim() ? { name: name.trim() } : {}),
            maxActivations: Number(maxActivations),
            entitlements: entitlements.split(',').map((e) => e.trim()).filter(Boolean),
            maxMajor: intOrNull(maxMajor),
            ...(kind === 'trial' ? { trialDays: Number(trialDays) } : {}),
            ...(seatMode === 'floating' ? { seatMode, ...leaseBody(lease) } : {}),
          });
          setCreated(`Plan ${plan.code} added.`);
          setCode('');
          setName('');
          plans.reload();
        }}
      >
        <div class="grid-2">
          <TextField label="Code" name="code" hint={PLAN_CODE.hint} rule={PLAN_CODE.rule} pattern={PLAN_CODE.pattern} maxLength={64} required spellcheck={false} autoComplete="off" value={code} onValue={setCode} />
          <TextField label="Name" name="name" hint="Shown to customers; defaults to the code" maxLength={200} value={name} onValue={setName} />
          <SelectField label="Kind" name="kind" hint="Cannot change later" value={kind} onValue={setKind} options={KINDS} />
          <TextField label="Machines per seat" name="maxActivations" type="number" min={1} max={100000} required value={maxActivations} onValue={setMaxActivations} />
          <TextField label="Entitlements" name="entitlements" hint="Comma-separated, e.g. export, sync" value={entitlements} onValue={setEntitlements} />
          <TextField label="Highest major version covered" name="maxMajor" type="number" min={0} hint="Empty: every version" value={maxMajor} onValue={setMaxMajor} />
          {kind === 'trial' ? <TextField label="Trial days" name="trialDays" type="number" min={1} max={3650} value={trialDays} onValue={setTrialDays} /> : null}
          <SelectField label="Seats" name="seatMode" hint="Machine: each seat bound to its machines. Floating: any machine runs while a seat is free. Cannot change later" value={seatMode} onValue={setSeatMode} options={SEAT_MODES} />
          {seatMode === 'floating' ? <LeaseFields value={lease} onValue={setLease} /> : null}
        </div>
      </Form>
      </> : null}
    </Section>
  );
}
