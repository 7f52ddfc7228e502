import { HTTPError } from 'h3';
import { LicensingError, type LicensingErrorCode } from '@svc-licensing/license-engine';

/**
 * Every error code the HTTP API answers with: the engine's codes plus the one the server adds
 * for owner-only routes called with an API key (see docs/decisions.md).
 */
export type ApiErrorCode = LicensingErrorCode | 'owner_session_required' | 'not_ready';

/**
 * The one place mapping an error code to its HTTP status (the spec's "Errors" table).
 *
 * @example
 * statusForCode('activation_limit'); // 409
 */
export function statusForCode(code: ApiErrorCode): number {
  return STATUS[code];
}

const STATUS: Record<ApiErrorCode, number> = {
  invalid_request: 400,
  owner_session_required: 400,
  unauthorized: 401,
  plan_limit: 402,
  forbidden: 403,
  license_expired: 403,
  license_suspended: 403,
  license_refunded: 403,
  license_revoked: 403,
  account_closed: 403,
  not_found: 404,
  unknown_product: 404,
  unknown_key: 404,
  not_activated: 404,
  conflict: 409,
  key_email_in_progress: 409,
  activation_limit: 409,
  release_limit: 409,
  borrow_limit: 409,
  rate_limited: 429,
  internal_error: 500,
  customer_unknown: 500,
  secrets_changed: 500,
  not_ready: 503,
};

/**
 * An error the HTTP layer raises itself (validation, authentication, rate limits, owner-only
 * routes). `status` defaults to the code's status; a body over the size limit uses 413.
 *
 * @example
 * throw new ApiError('invalid_request', 'name: expected a string');
 */
export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Why, for the request log only (a short code holding no secret), where `code` alone does not say. */
  readonly reason: string | null;
  constructor(code: ApiErrorCode, message: string, options: { status?: number; headers?: Record<string, string>; reason?: string } = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = options.status ?? statusForCode(code);
    this.headers = options.headers ?? {};
    this.reason = options.reason ?? null;
  }

  /** Works across module copies, unlike `instanceof`. */
  static is(error: unknown): error is ApiError {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as { name?: unknown }).name === 'ApiError' &&
      typeof (error as { code?: unknown }).code === 'string'
    );
  }
}

/** What an error becomes on the wire. `internal` is set when the cause must be logged, not shown. */
export interface ErrorReply {
  status: number;
  code: ApiErrorCode;
  message: string;
  headers: Record<string, string>;
  internal: unknown;
  /** For the request log: why (an `ApiError`'s `reason`). */
  reason?: string;
}

/**
 * Turns anything thrown while handling a request into the spec's error reply. Unknown errors
 * become `500 internal_error` with a generic message: no internals leak to the caller.
 *
 * @example
 * const reply = toErrorReply(new LicensingError('conflict', 'revoked'));
 * reply.status; // 409
 */
export function toErrorReply(error: unknown): ErrorReply {
  // h3 wraps what a handler throws in an `unhandled` HTTPError whose `cause` is the original error.
  const original = HTTPError.isError(error) && error.unhandled === true && error.cause !== undefined ? error.cause : error;
  if (ApiError.is(original)) {
    const why = original.reason === null || original.reason === undefined ? {} : { reason: original.reason };
    return { status: original.status, code: original.code, message: original.message, headers: original.headers, internal: null, ...why };
  }
  if (LicensingError.is(original)) {
    // The vendor API's closed code list has no "e-mail in progress": it is a conflict there.
    const code = original.code === 'key_email_in_progress' ? 'conflict' : (original.code as ApiErrorCode);
    const status = STATUS[code];
    if (status === undefined || status >= 500) return internal(original);
    return { status, code, message: original.message, headers: {}, internal: null };
  }
  if (HTTPError.isError(original) && original.unhandled !== true) {
    if (original.status === 404) return reply(404, 'not_found', 'No such route.');
    if (original.status === 405) return reply(404, 'not_found', 'No such route.');
    if (original.status === 413) return { ...reply(413, 'invalid_request', 'Request body too large.'), headers: { connection: 'close' } };
    if (original.status >= 400 && original.status < 500) return reply(400, 'invalid_request', 'Malformed request.');
  }
  return internal(original);
}

/** The one `Content-Type` of every JSON answer, success and error alike. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** The `{ error: { code, message } }` response of the spec. */
export function errorResponse(reply: Pick<ErrorReply, 'status' | 'code' | 'message'>, headers: Headers): Response {
  headers.set('content-type', JSON_CONTENT_TYPE);
  return new Response(JSON.stringify({ error: { code: reply.code, message: reply.message } }), { status: reply.status, headers });
}

function reply(status: number, code: ApiErrorCode, message: string): ErrorReply {
  return { status, code, message, headers: {}, internal: null };
}

function internal(cause: unknown): ErrorReply {
  return { status: 500, code: 'internal_error', message: 'Internal error; retry later.', headers: {}, internal: cause };
}
