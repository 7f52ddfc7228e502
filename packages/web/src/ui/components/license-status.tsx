import type { LicenseStatus } from '../types.js';
import { Badge, type BadgeTone } from './layout.js';

/** A license status in words, as both apps show it (the filter of the dashboard's list too). */
export const LICENSE_STATUS_LABEL: Readonly<Record<LicenseStatus, string>> = {
  active: 'Active',
  perpetual: 'Perpetual',
  past_due: 'Past due',
  canceled: 'Canceled',
  suspended: 'Suspended',
  expired: 'Expired',
  refunded: 'Refunded',
  revoked: 'Revoked',
};

/** Good: the license works; warn: it works for now or can be restored; bad: it no longer works. */
const TONE: Readonly<Record<LicenseStatus, BadgeTone>> = {
  active: 'good',
  perpetual: 'good',
  past_due: 'warn',
  canceled: 'warn',
  suspended: 'warn',
  expired: 'bad',
  refunded: 'bad',
  revoked: 'bad',
};

/** A license's status as a badge: the same word and colour in the dashboard and the customer portal. */
export function LicenseStatusBadge({ status }: { status: LicenseStatus }) {
  return <Badge tone={TONE[status]}>{LICENSE_STATUS_LABEL[status]}</Badge>;
}
