/**
 * A typed client of the public `/v1` API for the browser apps: same-origin requests that carry the
 * session cookie (never an API key), JSON in and out, and the API's `{ error: { code, message } }`
 * turned into an {@link ApiError} whose message is the API's own.
 */

/** A refused or failed call: `code` and `message` as the API sent them, or `network_error`. */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }

  /** Works across module copies, unlike `instanceof`. */
  static is(error: unknown): error is ApiError {
    return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'ApiError' && typeof (error as { code?: unknown }).code === 'string';
  }
}

/** `{ data, nextCursor }` of every list. */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface ApiClient {
  get<T>(path: string, query?: Query): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  del<T>(path: string): Promise<T>;
  /** A POST whose answer is a document to save (an export): its body as a Blob. */
  download(path: string): Promise<Blob>;
}

export interface ApiClientOptions {
  /** Absolute URL of the API ending in `/v1/`, e.g. `new URL('../v1/', document.baseURI)`. */
  base: URL;
  /** Called on every `401` (the session ended), before the error is thrown. */
  onUnauthorized?: () => void;
  fetch?: typeof fetch;
}

/** Builds the query string, leaving out empty values. */
export function toQuery(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * @example
 * const api = createApiClient({ base: new URL('../v1/', document.baseURI) });
 * const products = await api.get<Page<Product>>('products');
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  async function call<T>(method: string, path: string, body?: unknown, query?: Query, asBlob = false): Promise<T> {
    const url = new URL(path.replace(/^\//, '') + toQuery(query), options.base);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await doFetch(url, {
        method,
        headers,
        credentials: 'same-origin',
        cache: 'no-store',
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch {
      throw new ApiError(0, 'network_error', 'The server cannot be reached. Check your connection and try again.');
    }
    if (asBlob && res.ok) return (await res.blob()) as T;
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = null;
    }
    if (!res.ok) {
      if (res.status === 401) options.onUnauthorized?.();
      const error = (parsed as { error?: { code?: unknown; message?: unknown } } | null)?.error;
      if (error && typeof error.code === 'string' && typeof error.message === 'string') throw new ApiError(res.status, error.code, error.message);
      throw new ApiError(res.status, 'http_error', `The server answered ${res.status} ${res.statusText}`.trim() + '.');
    }
    return parsed as T;
  }
  return {
    get: (path, query) => call('GET', path, undefined, query),
    post: (path, body) => call('POST', path, body ?? undefined),
    patch: (path, body) => call('PATCH', path, body),
    del: (path) => call('DELETE', path),
    download: (path) => call<Blob>('POST', path, undefined, undefined, true),
  };
}
