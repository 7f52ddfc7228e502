/**
 * The client of the public `/v1` API under both browser apps: same-origin requests that carry the
 * session cookie (never an API key), JSON in and out, the API's `{ error: { code, message } }`
 * turned into an {@link ApiError} whose message is the API's own, and the end of the session (any
 * `401`) told to whoever listens. Each app binds it to typed endpoint functions in its own `api.ts`;
 * pages call those, never this client.
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

/**
 * Query parameters: an object of strings, numbers, booleans, `null` or `undefined` (an endpoint's
 * typed filters, e.g. `LicenseFilters`); `undefined`, `null` and `''` are left out.
 */
export type Query = object;

export interface ApiClient {
  get<T>(path: string, query?: Query): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  del<T>(path: string): Promise<T>;
  /** A POST whose answer is a document to save (an export): its body as a Blob. */
  download(path: string): Promise<Blob>;
  /** A GET whose answer is text, not JSON (a signed revocation list): the body as served. */
  getText(path: string): Promise<string>;
  /**
   * Calls `listener` on every `401` (the session ended, was revoked, or never was), before the
   * call's error is thrown; the app goes back to its sign-in page. Returns the unsubscribe.
   */
  onSignedOut(listener: () => void): () => void;
}

export interface ApiClientOptions {
  /**
   * Absolute URL of the API ending in `/`, or a function giving it at each call, e.g.
   * `() => new URL('../v1/', document.baseURI)` (so that creating the client reads nothing of the page).
   */
  base: URL | (() => URL);
  fetch?: typeof fetch;
}

/** Builds the query string, leaving out empty values. */
export function toQuery(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query) as [string, unknown][]) if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * A path with its parameters encoded: ``path`licenses/${id}/send-key` `` (an ID holding `/` or `?`
 * stays one segment).
 */
export function path(strings: TemplateStringsArray, ...values: string[]): string {
  return strings.reduce((out, text, i) => out + text + (i < values.length ? encodeURIComponent(values[i]!) : ''), '');
}

/**
 * @example
 * const client = createApiClient({ base: () => new URL('../v1/', document.baseURI) });
 * const product = await client.get<ProductView>(path`products/${id}`);
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const signedOut = new Set<() => void>();
  async function call<T>(method: string, path: string, body?: unknown, query?: Query, asBlob = false): Promise<T> {
    const url = new URL(path.replace(/^\//, '') + toQuery(query), typeof options.base === 'function' ? options.base() : options.base);
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
      if (res.status === 401) for (const listener of [...signedOut]) listener();
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
    getText: async (path) => (await call<Blob>('GET', path, undefined, undefined, true)).text(),
    onSignedOut: (listener) => {
      signedOut.add(listener);
      return () => void signedOut.delete(listener);
    },
  };
}
