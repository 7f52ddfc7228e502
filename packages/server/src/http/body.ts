import { assertBodySize, type H3Event } from 'h3';
import { ApiError } from './errors.js';

/** Default request body limit: 64 KiB (see docs/decisions.md). */
export const DEFAULT_BODY_LIMIT = 64 * 1024;

/**
 * Reads a JSON request body. The content type must be JSON (`application/json` or `+json`);
 * malformed JSON and bodies over `limit` bytes are refused with `invalid_request` (413 for size).
 * An empty body reads as `undefined`, so routes that take no body accept one being absent.
 *
 * @example
 * const body = await readJsonBody(event, 64 * 1024);
 */
export async function readJsonBody(event: H3Event, limit: number): Promise<unknown> {
  const length = event.req.headers.get('content-length');
  if (length !== null && Number(length) > limit) throw tooLarge(limit);
  let text: string;
  if (length !== null && length !== '0' && DECLARED_LENGTH.test(length)) {
    // A declared length within the limit: the HTTP parser delivers no more than that, so the body
    // is read as it is (on Node without a web stream in between, which costs a tenth of a request).
    checkContentType(event);
    text = await event.req.text().catch(() => unreadable(event));
  } else {
    if (event.req.body === null || length === '0') return undefined;
    checkContentType(event);
    try {
      assertBodySize(event, limit);
      text = await event.req.text();
    } catch (error) {
      if (isTooLarge(error)) throw tooLarge(limit);
      unreadable(event);
    }
  }
  if (text.length > limit) throw tooLarge(limit);
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError('invalid_request', 'The request body is not valid JSON.');
  }
}

/** A `Content-Length` value a route may trust the HTTP parser to hold the body to. */
export const DECLARED_LENGTH = /^\d{1,15}$/;

function checkContentType(event: H3Event): void {
  if (!isJsonContentType(event.req.headers.get('content-type'))) {
    throw new ApiError('invalid_request', 'Content-Type must be application/json.');
  }
}

function unreadable(event: H3Event): never {
  throw bodyReadFailure(event);
}

/** The status of a request whose client went away before its body was read (nginx's "client closed request"). */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * What a failed read of the request body answers: `499` when the client closed the connection
 * (an aborted upload: nobody reads the answer, the request log shows it as such, without a stack),
 * else `400 invalid_request`. Never a `500`: the server did nothing wrong.
 *
 * @example
 * const bytes = await event.req.arrayBuffer().catch(() => { throw bodyReadFailure(event); });
 */
export function bodyReadFailure(event: H3Event): ApiError {
  if (event.req.signal?.aborted === true) {
    return new ApiError('invalid_request', 'The client closed the connection before its request body was read.', { status: CLIENT_CLOSED_REQUEST });
  }
  return new ApiError('invalid_request', 'The request body could not be read.');
}

/** True for `application/json` and `application/<anything>+json`, with or without parameters. */
export function isJsonContentType(value: string | null): boolean {
  if (value === null) return false;
  const type = value.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

function tooLarge(limit: number): ApiError {
  return new ApiError('invalid_request', `Request body larger than ${limit} bytes.`, { status: 413 });
}

/** True for h3's error of a body over the size limit. */
export function isTooLarge(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { status?: unknown }).status === 413;
}
