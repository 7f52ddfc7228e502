/**
 * Codes a client API call can fail with. The server's codes are passed through unchanged (the spec's
 * error table); the SDK adds its own for failures that never reach or never come from the server.
 */
export type LicenseClientErrorCode =
  // The server's client API codes (spec "Errors"), kept as received.
  | 'invalid_request'
  | 'license_expired'
  | 'license_suspended'
  | 'license_refunded'
  | 'license_revoked'
  | 'account_closed'
  | 'unknown_product'
  | 'unknown_key'
  | 'not_activated'
  | 'activation_limit'
  /** Floating seats: `borrow()` found the plan's `maxBorrowedSeats` machines of the license already borrowing. */
  | 'borrow_limit'
  | 'rate_limited'
  | 'internal_error'
  /** The request never got an HTTP answer: connection refused, DNS, timeout, CORS refusal, offline. */
  | 'network_error'
  /** The server answered 200 but its certificate does not verify here (e.g. signed by a key the app does not embed). */
  | 'invalid_certificate'
  /**
   * A certificate older than the newest one this machine has seen (its `issuedAt` is below the stored
   * highest): a replayed old answer must not roll the license back, so it is refused.
   */
  | 'stale_certificate'
  /** The server answered something that is not the spec's shape (not JSON, no `error.code`, no `certificate`). */
  | 'invalid_response'
  /** `validate()` or `deactivate()` was called before any license key was stored by `activate()`. */
  | 'no_license_key'
  /** The storage adapter failed to read or write. */
  | 'storage_error'
  /** `readMachineId()` found no machine ID on this host. */
  | 'machine_id_unavailable'
  /** Bad options or arguments (a programmer error). */
  | 'invalid_argument'
  /** A code the server sent that this SDK version does not know; branch on `status`. */
  | (string & {});

/** Details carried by a {@link LicenseClientError}. */
export interface LicenseClientErrorDetails {
  /** HTTP status of the server's answer; null when there was none. */
  status?: number | null;
  /** For `invalid_certificate`: the verification outcome of the rejected certificate. */
  outcome?: string | null;
  cause?: unknown;
}

/**
 * The one error class of the client SDK. Branch on `code` (stable), never on `message`.
 *
 * @example
 * ```ts
 * try {
 *   await client.activate(key, { name: 'Laptop' });
 * } catch (error) {
 *   if (LicenseClientError.is(error) && error.code === 'activation_limit') showSeatsFull();
 *   else throw error;
 * }
 * ```
 */
export class LicenseClientError extends Error {
  readonly code: LicenseClientErrorCode;
  /** HTTP status of the server's answer; null when there was none. */
  readonly status: number | null;
  /** For `invalid_certificate`: the verification outcome of the rejected certificate; else null. */
  readonly outcome: string | null;

  constructor(code: LicenseClientErrorCode, message: string, details: LicenseClientErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'LicenseClientError';
    this.code = code;
    this.status = details.status ?? null;
    this.outcome = details.outcome ?? null;
  }

  /**
   * True for a LicenseClientError from any copy of this module (ESM and CJS builds loaded together),
   * which `instanceof` cannot promise.
   *
   * @example
   * ```ts
   * if (LicenseClientError.is(error) && error.code === 'network_error') retryLater();
   * ```
   */
  static is(error: unknown): error is LicenseClientError {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as { name?: unknown }).name === 'LicenseClientError' &&
      typeof (error as { code?: unknown }).code === 'string'
    );
  }
}
