/** A `fetch` compatible function (the global one, undici's, Electron's `net.fetch`, or a test's). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** The answer of one client API call. */
export type HttpAnswer =
  /** 2xx with a JSON object body. */
  | { kind: 'ok'; body: Record<string, unknown> }
  /** Any other answer; `code` and `message` come from the spec's `{ error: { code, message } }` body when present. */
  | { kind: 'refused'; status: number; code: string | null; message: string }
  /** No HTTP answer: the request could not be sent or timed out. */
  | { kind: 'network_error'; cause: unknown };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * POSTs a JSON body and classifies the answer. Never throws: every failure is a value, so the
 * caller applies the spec's rule 4 in one place. `keepalive` lets the request outlive the page.
 */
export async function postJson(fetchFn: FetchLike, url: string, body: unknown, timeoutMs: number, keepalive = false): Promise<HttpAnswer> {
  let response: Response;
  let text: string;
  try {
    response = await fetchFn(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
      // A page being unloaded still sends (and the browser completes) a keepalive request: release().
      ...(keepalive ? { keepalive: true } : {}),
    });
    text = await response.text();
  } catch (cause) {
    return { kind: 'network_error', cause };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (response.ok && isObject(parsed)) return { kind: 'ok', body: parsed };
  const error = isObject(parsed) && isObject(parsed.error) ? parsed.error : null;
  const code = error && typeof error.code === 'string' && error.code !== '' ? error.code : null;
  const message = error && typeof error.message === 'string' ? error.message : `HTTP ${response.status}`;
  return { kind: 'refused', status: response.status, code, message };
}

/**
 * GETs a text document (the revocation list). Never throws: anything but a 200 with a body, and any
 * network failure, is null (the caller tries again at the next occasion).
 */
export async function getText(fetchFn: FetchLike, url: string, timeoutMs: number): Promise<string | null> {
  try {
    const response = await fetchFn(url, { method: 'GET', headers: { accept: 'text/plain' }, signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    return response.status === 200 ? text : null;
  } catch {
    return null;
  }
}
