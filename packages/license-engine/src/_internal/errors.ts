/**
 * Every error code the service answers with: the spec's table plus the webhook receiver's outcomes.
 * The HTTP status for each is decided in one place, by the server.
 */
export type LicensingErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'plan_limit'
  | 'forbidden'
  | 'license_expired'
  | 'license_suspended'
  | 'license_refunded'
  | 'license_revoked'
  | 'account_closed'
  | 'not_found'
  | 'unknown_product'
  | 'unknown_key'
  | 'not_activated'
  | 'conflict'
  | 'activation_limit'
  /** Client API borrow: `maxBorrowedSeats` machines of the license already hold a borrow (docs/floating-seats.md). */
  | 'borrow_limit'
  /** Portal: the license freed as many machines in 30 days as the vendor allows. */
  | 'release_limit'
  | 'rate_limited'
  | 'internal_error'
  /** Webhook: another key e-mail for the same license is in progress (409, event not marked processed). */
  | 'key_email_in_progress'
  /** Webhook: the provider_a customer is not known yet (500 so the provider retries). */
  | 'customer_unknown'
  /**
   * Webhook: the integration's secrets changed after the delivery was verified with them (see
   * `PaymentOptions.secretsVersion`); nothing was written. The host verifies it again with the
   * current secrets; it is never meant to be an answer.
   */
  | 'secrets_changed';

/** The one error class of the engine: a spec `code` and an English message not meant to be parsed. */
export class LicensingError extends Error {
  readonly code: LicensingErrorCode;
  constructor(code: LicensingErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LicensingError';
    this.code = code;
  }

  /** Works across module copies (ESM and CJS builds loaded together), unlike `instanceof`. */
  static is(error: unknown): error is LicensingError {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as { name?: unknown }).name === 'LicensingError' &&
      typeof (error as { code?: unknown }).code === 'string'
    );
  }
}
