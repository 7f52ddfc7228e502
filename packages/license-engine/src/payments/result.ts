import { LicensingError, type LicensingErrorCode } from '../_internal/errors.js';
import type { KeyEmail } from '../mail/key-email.js';

/**
 * What an applied provider event did; `keyEmail` asks the host to e-mail a license's key: the
 * reservation is held, and `email` is what to send, built in the same unit of work (it carries the
 * clear key and the sender's DKIM key: never log it).
 */
export interface PaymentApplied {
  result: 'processed' | 'duplicate' | 'ignored';
  detail: string;
  licenseId: string | null;
  keyEmail: { licenseId: string; email: KeyEmail } | null;
}

/**
 * Why an event was not applied although nothing failed; nothing was written, and the provider's
 * retry (or the host's next try) is processed afresh:
 *
 * - `not_found`: no such integration (or it was deleted meanwhile);
 * - `secrets_changed`: the integration holds other secrets than the ones the delivery was verified
 *   with (see {@link PaymentOptions.secretsVersion}): verify it again with the current ones;
 * - `customer_unknown`: the event names a provider customer ID that is not mapped yet;
 * - `key_email_in_progress`: another key e-mail of the same license is being sent;
 * - `rate_limited`: the account's hourly budget of key e-mails is spent;
 * - `conflict`: the event cannot apply (a payment for a revoked license, or a change that kept
 *   clashing with concurrent ones).
 */
export type PaymentRefusalCode = 'not_found' | 'secrets_changed' | 'customer_unknown' | 'key_email_in_progress' | 'rate_limited' | 'conflict';

/** A provider event that was not applied, as a value (see {@link PaymentRefusalCode}). */
export interface PaymentRefused {
  result: 'refused';
  code: PaymentRefusalCode;
  detail: string;
  licenseId: null;
  keyEmail: null;
}

/** What `applyPaymentCommand` answers: the event applied, or refused without a failure. */
export type PaymentResult = PaymentApplied | PaymentRefused;

/** Options of `applyPaymentCommand`. */
export interface PaymentOptions {
  /**
   * The `secretsVersion` of the integration secrets the host verified the delivery with (from
   * `getIntegrationSecrets`, perhaps kept in memory): when the integration holds other secrets
   * now, nothing is written and the answer is refused with `secrets_changed`, so the host
   * verifies again.
   */
  secretsVersion?: string;
}

const REFUSALS: readonly LicensingErrorCode[] = ['not_found', 'secrets_changed', 'customer_unknown', 'key_email_in_progress', 'rate_limited', 'conflict'];

/**
 * The refusal an event's unit of work was ended with, or null for a failure. A refusal ends the
 * unit by a throw, so that nothing it wrote is kept; only its answer is a value.
 */
export function refusalOf(error: unknown): PaymentRefused | null {
  if (!LicensingError.is(error) || !REFUSALS.includes(error.code)) return null;
  return { result: 'refused', code: error.code as PaymentRefusalCode, detail: error.message, licenseId: null, keyEmail: null };
}
