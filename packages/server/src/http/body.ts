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
  if (event.req.body === null || length === '0') return undefined;
  if (!isJsonContentType(event.req.headers.get('content-type'))) {
    throw new ApiError('invalid_request', 'Content-Type must be application/json.');
  }
  let text: string;
  try {
    assertBodySize(event, limit);
    text = await event.req.text();
  } catch (error) {
    if (isTooLarge(error)) throw tooLarge(limit);
    throw new ApiError('invalid_request', 'The request body could not be read.');
  }
  if (text.length > limit) throw tooLarge(limit);
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError('invalid_request', 'The request body is not valid JSON.');
  }
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

function isTooLarge(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { status?: unknown }).status === 413;
}
