import type { LicenseStatus } from '../ui/types.js';

export const STATUS_TONE: Record<LicenseStatus, 'good' | 'warn' | 'bad' | 'neutral'> = {
  active: 'good',
  perpetual: 'good',
  past_due: 'warn',
  canceled: 'warn',
  suspended: 'warn',
  expired: 'bad',
  refunded: 'bad',
  revoked: 'bad',
};

export const STATUS_LABEL: Record<LicenseStatus, string> = {
  active: 'Active',
  perpetual: 'Perpetual',
  past_due: 'Past due',
  canceled: 'Canceled',
  suspended: 'Suspended',
  expired: 'Expired',
  refunded: 'Refunded',
  revoked: 'Revoked',
};

/** A whole number typed in a field, or null when empty. */
export function intOrNull(text: string): number | null {
  const t = text.trim();
  return t === '' ? null : Number.parseInt(t, 10);
}

/** `YYYY-MM-DD` from a date field → the API's `YYYY-MM-DDT23:59:59Z` (end of that UTC day). */
export function endOfDay(date: string): string {
  return `${date}T23:59:59Z`;
}
