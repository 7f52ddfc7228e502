import type { LicenseRecord, PlanRecord, ProductRecord, Timestamp } from './records.js';
import { addDays, fitsAfterDays, MAX_TIMESTAMP_MS, toTimestamp } from './time.js';

/** Effective license terms: the plan's values unless the license overrides them. */

/** Machines allowed: the license override, else plan machines per seat x seats. */
export function activationLimitOf(license: LicenseRecord, plan: PlanRecord): number {
  return license.maxActivations ?? plan.maxActivations * license.seats;
}

export function maxMajorOf(license: LicenseRecord, plan: PlanRecord): number | null {
  return license.maxMajorOverride ? license.maxMajorOverride.value : plan.maxMajor;
}

/**
 * `paidUntil` plus the product's grace days; null for a perpetual license. Held at the last
 * four-digit-year second should a later rise of the grace days pass it (requests that would are refused).
 */
export function validUntilOf(license: LicenseRecord, product: ProductRecord): Timestamp | null {
  if (license.paidUntil === null) return null;
  return fitsAfterDays(license.paidUntil, product.graceDays) ? addDays(license.paidUntil, product.graceDays) : toTimestamp(MAX_TIMESTAMP_MS);
}
