import { Alert } from '../../ui/components/alert.js';
import { PageHeader } from '../../ui/components/layout.js';
import { LicenseStatusBadge } from '../../ui/components/license-status.js';
import { Table } from '../../ui/components/table.js';
import { DateTime } from '../../ui/components/time.js';
import { useLoad } from '../../ui/hooks.js';
import { href } from '../../ui/router.js';
import { api } from '../api.js';
import { appNameOf, usePortal } from '../context.js';
import { seatsInUse } from '../../ui/components/lease.js';

/** The customer's licenses of this vendor. */
export function LicensesPage() {
  const portal = usePortal();
  const licenses = useLoad(() => api.licenses.list(), []);
  return (
    <div>
      <PageHeader title="Your licenses" appName={appNameOf(portal)}>
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
          { label: 'Status', cell: (l) => <LicenseStatusBadge status={l.status} />, nowrap: true },
          { label: 'Valid until', cell: (l) => <DateTime value={l.validUntil} date empty="No end date" /> },
          { label: 'Seats', cell: (l) => l.seats, nowrap: true },
          { label: 'Machines', cell: (l) => seatsInUse(l) },
        ]}
      />
    </div>
  );
}
