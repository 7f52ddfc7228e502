import { useEffect, useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { Button } from '../../ui/components/button.js';
import { ConfirmButton } from '../../ui/components/dialog.js';
import { CopyField, Id } from '../../ui/components/copy.js';
import { TextField } from '../../ui/components/field.js';
import { Form } from '../../ui/components/form.js';
import { Facts, PageHeader, Section } from '../../ui/components/layout.js';
import { LicenseStatusBadge } from '../../ui/components/license-status.js';
import { Table } from '../../ui/components/table.js';
import { DateTime } from '../../ui/components/time.js';
import { useAction, useLoad } from '../../ui/hooks.js';
import { href, type PageProps } from '../../ui/router.js';
import type { ActivationView, LicenseDetailView, UpdateLicenseInput } from '../../ui/types.js';
import { FreedLeaseNote, leaseColumns, seatsInUse } from '../../ui/components/lease.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { customerName, endOfDay, intOrNull } from '../format.js';
import { CustomerCell } from '../widgets/customer.js';

/** One license: facts, key, machines, and the actions on it. */
export function LicensePage({ params }: PageProps) {
  const id = params.id!;
  const license = useLoad(() => api.licenses.get(id), [id]);
  const [notice, setNotice] = useState<string | null>(null);
  const l = license.data;
  const sendKey = useSendKey(id, l?.customer.email ?? '');
  const act = async (action: 'suspend' | 'reinstate' | 'revoke', done: string) => {
    await api.licenses[action](id);
    setNotice(done);
    license.reload();
  };
  return (
    <>
      <PageHeader title={l ? `License of ${customerName(l.customer)}` : 'License'} appName={APP_NAME}>
        <p>
          <a href={href('licenses')}>All licenses</a>
          {l ? (
            <>
              {' · '}
              <a href={href('events', { license: l.id })}>Events of this license</a>
            </>
          ) : null}
        </p>
      </PageHeader>
      <Alert kind="error">{license.error?.message}</Alert>
      <Alert kind="success">{notice}</Alert>
      {l ? (
        <>
          <Section title="License">
            <Facts
              items={[
                ['Customer', <CustomerCell customer={l.customer} to={href('customers', l.customer.id)} />, 'wide'],
                ['Status', <LicenseStatusBadge status={l.status} />],
                ['Plan', `${l.planName} (${l.plan})`],
                ['Seats', l.seats],
                ['Machines', `${seatsInUse(l)}${l.maxActivations !== null ? ' (license override)' : ''}`],
                ['Paid until', <DateTime value={l.paidUntil} empty="—" />],
                ['Valid until', <DateTime value={l.validUntil} empty="no end" />],
                ['Highest major version', l.maxMajor ?? 'any'],
                ['Entitlements', l.entitlements.length ? l.entitlements.join(', ') : '—'],
                ['Source', l.provider ?? 'created by hand'],
                ['Created', <DateTime value={l.createdAt} />],
                ['License ID', <Id value={l.id} what="license ID" />, 'wide'],
              ]}
            />
            <h3>License key</h3>
            <CopyField value={l.key} what="license key" />
          </Section>
          <Section title="Actions">
            {l.status === 'revoked' ? (
              <p class="muted">A revoked license is final: nothing can change it any more.</p>
            ) : (
              <div class="actions">
                {l.status === 'suspended' || l.status === 'refunded' ? (
                  <ConfirmButton label="Reinstate" title="Reinstate this license?" confirmLabel="Reinstate" variant="primary" onConfirm={() => act('reinstate', 'The license is reinstated.')}>
                    <p>It returns to the status it had before the suspension or refund, and its machines validate again.</p>
                  </ConfirmButton>
                ) : (
                  <ConfirmButton label="Suspend" title="Suspend this license?" confirmLabel="Suspend" variant="secondary" onConfirm={() => act('suspend', 'The license is suspended.')}>
                    <p>
                      Its machines are refused with <code>license_suspended</code> at their next online check. You can reinstate it later.
                    </p>
                  </ConfirmButton>
                )}
                {sendKey.button}
                <ConfirmButton label="Revoke" title="Revoke this license for good?" confirmLabel="Revoke the license" onConfirm={() => act('revoke', 'The license is revoked.')}>
                  <p>
                    Every machine is refused with <code>license_revoked</code> at its next online check, and the license can never be changed again, not even by a
                    payment. This cannot be undone.
                  </p>
                </ConfirmButton>
              </div>
            )}
            {sendKey.messages}
          </Section>
          <Section title="Machines">
            <Table
              caption="Activated machines"
              hideCaption
              rows={l.activations}
              rowKey={(a) => a.id}
              empty="No machine activated yet."
              columns={[
                { label: 'Name', cell: (a) => a.name ?? <span class="muted">unnamed</span> },
                { label: 'Platform', cell: (a) => a.platform ?? '—' },
                { label: 'App version', cell: (a) => a.appVersion ?? '—' },
                { label: 'Activated', cell: (a) => <DateTime value={a.createdAt} />, nowrap: true },
                { label: 'Last seen', cell: (a) => <DateTime value={a.lastSeenAt} />, nowrap: true },
                ...leaseColumns<ActivationView>(l),
                {
                  label: 'Action',
                  cell: (a) =>
                    l.status === 'revoked' ? (
                      '—'
                    ) : (
                      <ConfirmButton
                        label={`Free ${a.name ?? 'this machine'}`}
                        title="Free this machine?"
                        confirmLabel="Free the machine"
                        variant="secondary"
                        onConfirm={async () => {
                          await api.activations.release(a.id);
                          setNotice(`${a.name ?? 'The machine'} is freed; its seat can be used by another machine.`);
                          license.reload();
                        }}
                      >
                        <FreedLeaseNote activation={a} otherwise={<p>The machine loses its activation at its next online check, and its seat is free for another one.</p>} />
                      </ConfirmButton>
                    ),
                },
              ]}
            />
          </Section>
          {l.status !== 'revoked' ? <EditLicense license={l} onSaved={license.set} /> : null}
        </>
      ) : null}
    </>
  );
}

/**
 * "Send the key again": its button, and its two message regions, placed below the row of buttons
 * (not between them). Both regions are always rendered (empty until needed), so the outcome of a
 * press is announced: a live region inserted together with its text is often not read out.
 */
function useSendKey(id: string, email: string) {
  const sending = useAction();
  const [sent, setSent] = useState<{ text: string; portalUrl?: string } | null>(null);
  const button = (
    <Button
      busy={sending.busy}
      onClick={() =>
        sending.run(async () => {
          setSent(null);
          const answer = await api.licenses.sendKey(id);
          setSent({ text: `The key was e-mailed again to ${email}.`, ...(answer.portalUrl ? { portalUrl: answer.portalUrl } : {}) });
        })
      }
    >
      Send the key again
    </Button>
  );
  const messages = (
    <>
      <Alert kind="success">
        {sent && sending.error === null ? (
          <>
            {sent.text}
            {sent.portalUrl ? (
              <>
                {/* The address itself is on the settings page: in this box its ID would break mid-word on a phone. */}
                {' '}The e-mail links to your <a href={sent.portalUrl}>customer portal</a>.
              </>
            ) : null}
          </>
        ) : null}
      </Alert>
      <Alert kind="error">{sending.error}</Alert>
    </>
  );
  return { button, messages };
}

function EditLicense({ license, onSaved }: { license: LicenseDetailView; onSaved: (l: LicenseDetailView) => void }) {
  const [seats, setSeats] = useState(String(license.seats));
  const [paidUntil, setPaidUntil] = useState(license.paidUntil ? license.paidUntil.slice(0, 10) : '');
  const [maxActivations, setMaxActivations] = useState(license.maxActivations === null ? '' : String(license.maxActivations));
  const [maxMajor, setMaxMajor] = useState(license.maxMajor === null ? '' : String(license.maxMajor));
  const [saved, setSaved] = useState(false);
  useEffect(() => setSaved(false), [seats, paidUntil, maxActivations, maxMajor]);
  return (
    <Section title="Change the terms">
      <Alert kind="success">{saved ? 'Saved.' : null}</Alert>
      <Form
        label="Change the terms"
        submitLabel="Save"
        variant="secondary"
        onSubmit={async () => {
          const patch: UpdateLicenseInput = { seats: Number(seats), maxActivations: intOrNull(maxActivations), maxMajor: intOrNull(maxMajor) };
          if (paidUntil) patch.paidUntil = endOfDay(paidUntil);
          const updated = await api.licenses.update(license.id, patch);
          // The answer is the license without its key and machines: those stay as loaded.
          onSaved({ ...license, ...updated });
          setSaved(true);
        }}
      >
        <div class="grid-2">
          <TextField label="Seats" name="seats" type="number" min={1} max={100000} required value={seats} onValue={setSeats} />
          <TextField label="Paid until" name="paidUntil" type="date" hint="UTC day" value={paidUntil} onValue={setPaidUntil} />
          <TextField label="Machine limit override" name="maxActivations" type="number" min={1} max={100000} hint="Empty: plan machines × seats" value={maxActivations} onValue={setMaxActivations} />
          <TextField label="Highest major version" name="maxMajor" type="number" min={0} hint="Empty: every version" value={maxMajor} onValue={setMaxMajor} />
        </div>
      </Form>
    </Section>
  );
}
