import type { ActivationView, LicenseView } from '../types.js';
import type { ComponentChildren } from 'preact';
import type { Column } from './table.js';
import { DateTime } from './time.js';

/** What the lease views read of an activation (the vendor's and the customer's views both have it). */
type LeaseFacts = Pick<ActivationView, 'leaseState' | 'leaseExpiresAt' | 'borrowedUntil'>;

/** What the seat line reads of a license (the vendor's and the customer's license views both have it). */
type SeatFacts = Pick<LicenseView, 'seatMode' | 'liveLeases' | 'borrowedLeases' | 'activationCount' | 'activationLimit'>;

/**
 * How many of a license's machines count against its limit: on a floating plan the live leases
 * (`3 of 10 running`, borrowed ones named), on a machine plan the machines on record (`3 of 10`).
 */
export function seatsInUse(license: SeatFacts): string {
  if (license.seatMode !== 'floating') return `${license.activationCount} of ${license.activationLimit}`;
  const borrowed = license.borrowedLeases ?? 0;
  return `${license.liveLeases ?? 0} of ${license.activationLimit} running now${borrowed > 0 ? `, ${borrowed} borrowed` : ''}`;
}

/** A machine's floating lease: when it ends, "borrowed until", or lapsed (its seat free); `—` on a machine plan. */
export function LeaseCell({ activation: a }: { activation: LeaseFacts }) {
  if (a.leaseState === 'borrowed') return <span>Borrowed until <DateTime value={a.borrowedUntil} /></span>;
  if (a.leaseState === 'live') return <span>Lease ends <DateTime value={a.leaseExpiresAt} /></span>;
  if (a.leaseState === 'lapsed') return <span class="muted">Lapsed <DateTime value={a.leaseExpiresAt} />, seat free</span>;
  return <span>—</span>;
}

/** The machines table's `Lease` column of a floating license; none on a machine plan. */
export function leaseColumns<T extends LeaseFacts>(license: Pick<SeatFacts, 'seatMode'>): Column<T>[] {
  return license.seatMode === 'floating' ? [{ label: 'Lease', cell: (a) => <LeaseCell activation={a} /> }] : [];
}

/**
 * What freeing a floating machine does not undo, said in the confirmation: the certificate it holds
 * stays valid offline until it expires (the borrow's end for a borrowed machine). `otherwise`: the
 * text of a machine plan's confirmation.
 */
export function FreedLeaseNote({ activation: a, otherwise }: { activation: LeaseFacts; otherwise: ComponentChildren }) {
  if (a.leaseState === null) return <>{otherwise}</>;
  if (a.leaseState === 'borrowed') {
    return (
      <p>
        Its seat is free at once, but the borrowed certificate on the machine stays valid offline until it expires on <DateTime value={a.borrowedUntil} />.
      </p>
    );
  }
  if (a.leaseState === 'live') {
    return (
      <p>
        Its seat is free at once; the certificate on the machine stays valid offline until it expires at the lease end, <DateTime value={a.leaseExpiresAt} />.
      </p>
    );
  }
  if (a.leaseState === 'lapsed') return <p>Its lease has lapsed and its seat is already free; freeing it removes it from this list.</p>;
  return null;
}
