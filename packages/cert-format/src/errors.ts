/** Stable codes of {@link CertFormatError}. */
export type CertFormatErrorCode = 'invalid_argument' | 'invalid_payload' | 'invalid_private_key';

const MARK = Symbol.for('@svc-licensing/cert-format/error');

/**
 * The one error class of this package, thrown for programmer errors only (a bad key, a payload that
 * is not a valid certificate payload, an argument of the wrong type). Decoding never throws.
 *
 * @example
 * ```ts
 * import { CertFormatError } from '@svc-licensing/cert-format';
 * try { certificateTimes({ kind: 'trial', issuedAt: 1.5, validUntil: null, offlineDays: 7 }); }
 * catch (error) { if (CertFormatError.is(error)) console.log(error.code); } // 'invalid_argument'
 * ```
 */
export class CertFormatError extends Error {
  readonly code: CertFormatErrorCode;
  readonly [MARK] = true;

  constructor(code: CertFormatErrorCode, message: string) {
    super(message);
    this.name = 'CertFormatError';
    this.code = code;
  }

  /** True for a `CertFormatError` from any copy of this package (ESM or CJS); no `instanceof`. */
  static is(value: unknown): value is CertFormatError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARK] === true;
  }
}
