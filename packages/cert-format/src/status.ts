/** The eight license statuses of the spec, in the spec's order. */
export const LICENSE_STATUSES = [
  'active',
  'past_due',
  'canceled',
  'perpetual',
  'expired',
  'suspended',
  'refunded',
  'revoked',
] as const;

/** A license status as stored by the service and carried in certificates. */
export type LicenseStatus = (typeof LICENSE_STATUSES)[number];

/** Statuses for which a certificate is issued and accepted. */
export const USABLE_STATUSES: readonly LicenseStatus[] = ['active', 'past_due', 'canceled', 'perpetual'];

/** True for a status in which the license may be used (`active`, `past_due`, `canceled`, `perpetual`). */
export function isUsableStatus(status: string): status is LicenseStatus {
  return (USABLE_STATUSES as readonly string[]).includes(status);
}

/** True when `value` is one of the eight license statuses. */
export function isLicenseStatus(value: unknown): value is LicenseStatus {
  return typeof value === 'string' && (LICENSE_STATUSES as readonly string[]).includes(value);
}
