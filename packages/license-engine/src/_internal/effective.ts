import type { LicenseRecord, PlanRecord, ProductRecord, Timestamp } from '../records.js';
import { addDays } from './time.js';

/** Effective license terms: the plan's values unless the license overrides them. */

/** Machines allowed: the license override, else plan machines per seat x seats. */
export function activationLimitOf(license: LicenseRecord, plan: PlanRecord): number {
  return license.maxActivations ?? plan.maxActivations * license.seats;
}

export function maxMajorOf(license: LicenseRecord, plan: PlanRecord): number | null {
  return license.maxMajorOverride ? license.maxMajorOverride.value : plan.maxMajor;
}

/** `paidUntil` plus the product's grace days; null for a perpetual license. */
export function validUntilOf(license: LicenseRecord, product: ProductRecord): Timestamp | null {
  return license.paidUntil === null ? null : addDays(license.paidUntil, product.graceDays);
}
