import type { UrlRefusalCode } from './endpoint-url.js';

/**
 * Why an attempt failed:
 * - `refused`: the URL or an address its host resolves to breaks a safety rule (see `refusal`);
 * - `dns`: the host could not be resolved;
 * - `timeout`: no status line within the attempt's limit (10 s);
 * - `tls`: the TLS handshake failed (an untrusted or mismatched certificate, ...);
 * - `network`: the connection was refused, reset or unreachable;
 * - `redirect`: a 3xx answer (redirects are never followed);
 * - `gone`: `410 Gone` (the caller disables the endpoint);
 * - `http_status`: any other status outside 2xx.
 */
export type AttemptErrorCode = 'refused' | 'dns' | 'timeout' | 'tls' | 'network' | 'redirect' | 'gone' | 'http_status';

/** A failed attempt's reason: a stable code and a message for the delivery log. */
export interface AttemptError {
  code: AttemptErrorCode;
  message: string;
  /** With `refused`: which rule. */
  refusal?: UrlRefusalCode;
}

/**
 * The outcome of one attempt, as a value: success is any 2xx. `status` is null when no answer
 * came; `responseBody` holds at most the first 4 KiB of the answer (UTF-8, a cut character
 * replaced); `latencyMs` counts from the start of the attempt (DNS included) to its end.
 *
 * @example
 * ```ts
 * const result: AttemptResult = await sender.send(request);
 * if (!result.ok && result.error.code === 'gone') disableEndpoint();
 * ```
 */
export type AttemptResult =
  | { ok: true; status: number; latencyMs: number; responseBody: string }
  | { ok: false; status: number | null; latencyMs: number; responseBody: string; error: AttemptError };
