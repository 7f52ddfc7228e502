export { LICENSE_STATUSES, USABLE_STATUSES, isUsableStatus, isLicenseStatus } from './status.js';
export type { LicenseStatus } from './status.js';
