import { useContext } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { Badge, PageHeader } from '../../ui/components/layout.js';
import { Table } from '../../ui/components/table.js';
import { DateTime } from '../../ui/components/time.js';
import { useLoad } from '../../ui/hooks.js';
import { href } from '../../ui/router.js';
import { api, type PortalLicense } from '../api.js';
import { PortalContext } from '../app.js';

const GOOD = new Set(['active', 'perpetual']);
const WARN = new Set(['past_due', 'canceled']);

/** A license status as a word in a badge. */
export function StatusBadge({ status }: { status: string }) {
  return <Badge tone={GOOD.has(status) ? 'good' : WARN.has(status) ? 'warn' : 'bad'}>{status.replace('_', ' ')}</Badge>;
}

/** The customer's licenses of this vendor. */
export function LicensesPage() {
  const portal = useContext(PortalContext);
  const licenses = useLoad(() => api.get<{ data: PortalLicense[] }>('licenses'), []);
  return (
    <div>
      <PageHeader title="Your licenses" appName={`${portal.accountName} licenses`}>
        Open a license to see its key and the machines using it.
      </PageHeader>
      <Alert kind="error">{licenses.error?.message}</Alert>
      <Table
        caption="Your licenses"
        hideCaption
        rows={licenses.data?.data ?? null}
        rowKey={(l) => l.id}
        empty="No license is held by this address."
        columns={[
          { label: 'Product', cell: (l) => <a href={href('licenses', l.id)}>{l.product.name}</a> },
          { label: 'Plan', cell: (l) => l.plan.name },
          { label: 'Status', cell: (l) => <StatusBadge status={l.status} />, nowrap: true },
          { label: 'Valid until', cell: (l) => <DateTime value={l.validUntil} date empty="No end date" /> },
          { label: 'Seats', cell: (l) => l.seats, nowrap: true },
          { label: 'Machines', cell: (l) => `${l.activationCount} of ${l.activationLimit}`, nowrap: true },
        ]}
      />
    </div>
  );
}
