/**
 * Why a webhook body could not be turned into a command.
 *
 * @example
 * ```ts
 * const notJson = result.status === 'invalid' && result.error.code === 'invalid_json';
 * ```
 */
export type WebhookParseErrorCode =
  /** The body is not valid UTF-8 JSON. */
  | 'invalid_json'
  /** The JSON lacks a required field or a field has the wrong type or value. */
  | 'invalid_payload';

/**
 * The one error class of this package: a stable `code`, the dotted `path` of the first offending
 * field (`data.items.0.price.id`; null for `invalid_json` or the body itself) and an English message
 * not meant to be parsed. Parsers return it as data; nothing in this package throws it.
 *
 * @example
 * ```ts
 * const result = parseProviderAEvent('not json');
 * if (!result.ok && WebhookParseError.is(result.error)) console.log(result.error.code); // 'invalid_json'
 * ```
 */
export class WebhookParseError extends Error {
  readonly code: WebhookParseErrorCode;
  readonly path: string | null;
  constructor(code: WebhookParseErrorCode, message: string, options?: { path?: string | null; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WebhookParseError';
    this.code = code;
    this.path = options?.path ?? null;
  }

  /**
   * True for a WebhookParseError from any copy of this module (ESM and CJS builds), unlike `instanceof`.
   *
   * @example
   * ```ts
   * if (WebhookParseError.is(error)) console.log(error.code, error.path);
   * ```
   */
  static is(error: unknown): error is WebhookParseError {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as { name?: unknown }).name === 'WebhookParseError' &&
      typeof (error as { code?: unknown }).code === 'string'
    );
  }
}
