import { finished, type Readable } from 'node:stream';
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

/**
 * A body over the limit: `413` with `Connection: close`, so the server stops reading the rest
 * instead of draining it to keep the connection.
 */
function tooLarge(limit: number): ApiError {
  return new ApiError('invalid_request', `Request body larger than ${limit} bytes.`, { status: 413, headers: { connection: 'close' } });
}

/** True for h3's error of a body over the size limit. */
export function isTooLarge(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { status?: unknown }).status === 413;
}

/**
 * Reads a request body as the exact bytes sent (a webhook's signature covers them), refusing one
 * over `limit` bytes with `413 invalid_request` (before reading it when its length is declared).
 * A failed read answers like {@link bodyReadFailure}.
 *
 * @example
 * const rawBody = await readRawBody(event, 1024 * 1024);
 */
export async function readRawBody(event: H3Event, limit: number): Promise<Uint8Array> {
  const length = event.req.headers.get('content-length');
  if (length !== null && Number(length) > limit) throw tooLarge(limit);
  const node = event.runtime?.node?.req;
  if (node && length !== null && DECLARED_LENGTH.test(length) && !event.req.bodyUsed) {
    // A declared length within the limit: Node's HTTP parser delivers no more than that, so the
    // bytes are collected from the request as they come. The web-stream path below (a web
    // Request around a web stream) cost more than verifying a webhook's signature.
    const bytes = await collect(node).catch(() => {
      throw bodyReadFailure(event);
    });
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  try {
    assertBodySize(event, limit);
  } catch {
    throw tooLarge(limit);
  }
  const bytes = new Uint8Array(
    await event.req.arrayBuffer().catch((error: unknown) => {
      throw isTooLarge(error) ? tooLarge(limit) : bodyReadFailure(event);
    }),
  );
  if (bytes.byteLength > limit) throw tooLarge(limit);
  return bytes;
}

/** The chunks of a Node stream as one buffer; rejects when it errors or closes before its end. */
function collect(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // Not `node:stream/consumers`: its buffer() goes through a Blob, a copy and a transferable object.
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    finished(stream, (error) => (error ? reject(error) : resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))));
  });
}

/**
 * Reads a form post (`application/x-www-form-urlencoded`, a link page's button) of at most `limit`
 * bytes, for routes reached before sign-in. A declared `Content-Length` over the limit is refused
 * before a byte of the body is read, and a body without one (chunked) is refused as soon as it
 * passes the limit: `413 invalid_request` with `Connection: close`, so the server stops reading
 * the rest instead of draining it. A body of another type is read within the same bound and gives
 * no fields.
 *
 * @example
 * const token = (await readFormBody(event, 4096)).get('token') ?? '';
 */
export async function readFormBody(event: H3Event, limit: number): Promise<URLSearchParams> {
  const length = event.req.headers.get('content-length');
  if (length !== null && Number(length) > limit) throw tooLarge(limit);
  if (event.req.body === null || length === '0') return new URLSearchParams();
  let text: string;
  try {
    assertBodySize(event, limit);
    text = await event.req.text();
  } catch (error) {
    throw isTooLarge(error) ? tooLarge(limit) : bodyReadFailure(event);
  }
  const type = (event.req.headers.get('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/x-www-form-urlencoded' ? new URLSearchParams(text) : new URLSearchParams();
}
