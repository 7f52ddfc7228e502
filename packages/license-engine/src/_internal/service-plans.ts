/** Limits of one service plan (the vendor's own plan with this service); null = unlimited. */
export interface ServicePlan {
  /** Products the account may create. */
  productLimit: number | null;
  /** Licenses in a usable status the account may hold (reported as `overLimit`, never refused). */
  licenseLimit: number | null;
  /** License-key e-mails per hour (webhooks, `sendEmail`, send-key); beyond it `rate_limited`. */
  keyEmailsPerHour: number | null;
}

/** Service plans by name; the host may pass its own table to `createLicenseEngine`. */
export type ServicePlanTable = Readonly<Record<string, ServicePlan>>;

/**
 * The default service-plan table (the spec leaves the numbers open; see docs/decisions.md).
 *
 * @example
 * ```ts
 * const engine = createLicenseEngine({ ...deps, servicePlans: { ...DEFAULT_SERVICE_PLANS, team: { productLimit: 3, licenseLimit: 1000, keyEmailsPerHour: 100 } } });
 * ```
 */
export const DEFAULT_SERVICE_PLANS: ServicePlanTable = {
  free: { productLimit: 1, licenseLimit: 100, keyEmailsPerHour: 20 },
  pro: { productLimit: 10, licenseLimit: 10_000, keyEmailsPerHour: 500 },
  unlimited: { productLimit: null, licenseLimit: null, keyEmailsPerHour: null },
};
