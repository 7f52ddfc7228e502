import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { Button } from '../../ui/components/button.js';
import { CopyField } from '../../ui/components/copy.js';
import { ConfirmButton } from '../../ui/components/dialog.js';
import { Facts, PageHeader, Section } from '../../ui/components/layout.js';
import { LicenseStatusBadge } from '../../ui/components/license-status.js';
import { OfflineActivationForm } from '../../ui/components/offline-activation.js';
import { Table } from '../../ui/components/table.js';
import { DateTime } from '../../ui/components/time.js';
import { useLoad } from '../../ui/hooks.js';
import type { PageProps } from '../../ui/router.js';
import { FreedLeaseNote, leaseColumns, seatsInUse } from '../../ui/components/lease.js';
import type { PortalActivationView } from '../../ui/types.js';
import { api } from '../api.js';
import { appNameOf, usePortal } from '../context.js';

/** One license: its facts, its key (revealed on request), its machines (freed here) and activation by file. */
export function LicensePage({ params }: PageProps) {
  const id = params.id!;
  const portal = usePortal();
  const license = useLoad(() => api.licenses.get(id), [id]);
  const [key, setKey] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const l = license.data;
  const appName = appNameOf(portal);
  if (license.error) {
    return (
      <div>
        <PageHeader title="License" appName={appName} />
        <Alert kind="error">{license.error.message}</Alert>
        <p>
          <a href="#/">Back to your licenses</a>
        </p>
      </div>
    );
  }
  if (!l) return <p class="loading" role="status">Loading…</p>;
  const act = async (work: () => Promise<string>) => {
    setError(null);
    setMessage(null);
    try {
      setMessage(await work());
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <div>
      <PageHeader title={`${l.product.name} · ${l.plan.name}`} appName={appName}>
        <a href="#/">Your licenses</a>
      </PageHeader>
      <Facts
        items={[
          ['Status', <LicenseStatusBadge status={l.status} />],
          ['Valid until', <DateTime value={l.validUntil} date empty="No end date" />],
          ['Seats', l.seats],
          ['Machines', l.seatMode === 'floating' ? seatsInUse(l) : `${seatsInUse(l)} in use`],
        ]}
      />
      <Alert kind="success">{message}</Alert>
      <Alert kind="error">{error}</Alert>

      <Section title="License key">
        {key === null ? (
          <div class="actions">
            <Button variant="primary" onClick={() => act(async () => { setKey((await api.licenses.revealKey(l.id)).key); return ''; })}>
              Show the license key
            </Button>
            <Button onClick={() => act(async () => { await api.licenses.sendKey(l.id); return 'The license key is on its way to your e-mail address.'; })}>
              E-mail me the key again
            </Button>
          </div>
        ) : (
          <CopyField value={key} what="license key" />
        )}
      </Section>

      <Section title="Machines">
        <p class="muted">
          Free a machine you no longer use (a lost or replaced computer): its seat is free at once,{' '}
          {l.seatMode === 'floating'
            ? 'and freeing a borrowed machine returns its borrow early (the certificate on it stays valid offline until it expires).'
            : 'and the application on it stops at its next online check.'}{' '}
          You can free {l.releaseLimit} machine{l.releaseLimit === 1 ? '' : 's'} per 30 days here; {l.releasesLeft} left now.
        </p>
        <Table
          caption="Machines using this license"
          hideCaption
          rows={l.activations}
          rowKey={(a) => a.id}
          empty="No machine uses this license yet."
          columns={[
            { label: 'Name', cell: (a) => a.name ?? 'Unnamed machine' },
            { label: 'Platform', cell: (a) => a.platform ?? '—' },
            { label: 'App version', cell: (a) => a.appVersion ?? '—', nowrap: true },
            { label: 'Last seen', cell: (a) => <DateTime value={a.lastSeenAt} /> },
            ...leaseColumns<PortalActivationView>(l),
            {
              label: 'Action',
              cell: (a) => (
                <ConfirmButton
                  label={`Free ${a.name ?? 'this machine'}`}
                  title="Free this machine?"
                  confirmLabel="Free the machine"
                  onConfirm={async () => {
                    const answer = await api.activations.release(a.id);
                    setMessage(`${a.name ?? 'The machine'} is freed. ${answer.releasesLeft} more release${answer.releasesLeft === 1 ? '' : 's'} left in 30 days.`);
                    license.reload();
                  }}
                >
                  <FreedLeaseNote
                    activation={a}
                    otherwise={<p>{a.name ?? 'This machine'} will no longer be able to use {l.product.name} once it next checks its license online. Its seat becomes free for another machine.</p>}
                  />
                </ConfirmButton>
              ),
            },
          ]}
        />
      </Section>

      <Section title="Activate a machine without internet">
        <OfflineActivationForm
          licenses={[{ id: l.id, label: `${l.product.name} · ${l.plan.name}` }]}
          initialLicense={l.id}
          activate={(input) => api.activations.activateOffline(input)}
          onActivated={() => license.reload()}
          intro={<p class="muted">In the application on the machine, create an activation request file, then upload it here.</p>}
        />
      </Section>
    </div>
  );
}
