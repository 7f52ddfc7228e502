/**
 * The certificate verification outcomes, in the order their rules are applied (`valid` first;
 * `malformed` comes from rules 1 and 3): the spec's nine, plus `revoked` (RVL1, docs/rvl1.md), which
 * only a call given a revocation list (`revocations`) can return, checked after rule 5.
 *
 * @example
 * ```ts
 * VERIFICATION_OUTCOMES.includes(result.outcome); // always true
 * ```
 */
export const VERIFICATION_OUTCOMES = [
  'valid',
  'malformed',
  'invalid_signature',
  'wrong_product',
  'wrong_machine',
  'revoked',
  'expired',
  'not_usable',
  'version_not_covered',
  'clock_tampered',
] as const;

/** One of the verification outcomes: the spec's nine, or `revoked` when a revocation list was given. */
export type VerificationOutcome = (typeof VERIFICATION_OUTCOMES)[number];

/**
 * Clock rollback tolerance of the spec: 86,400 seconds.
 *
 * @example
 * ```ts
 * const tampered = now < highestIssuedAt - CLOCK_ROLLBACK_TOLERANCE_SECONDS;
 * ```
 */
export const CLOCK_ROLLBACK_TOLERANCE_SECONDS = 86_400;
