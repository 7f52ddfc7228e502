import type { ClientRequest, IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { AttemptError, AttemptResult } from './attempt-result.js';

/** Options of {@link readResponse}. */
export interface ReadResponseOptions {
  /** Aborts at the attempt's deadline. */
  signal: AbortSignal;
  /** `performance.now()` at the start of the attempt. */
  started: number;
  timeoutMs: number;
  maxBytes: number;
}

const TLS_ERROR = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|EPROTO$)/;

function networkError(error: NodeJS.ErrnoException): AttemptError {
  const code = error.code ?? 'error';
  return { code: TLS_ERROR.test(code) ? 'tls' : 'network', message: `${code}: ${error.message}`.slice(0, 500) };
}

function verdict(response: IncomingMessage, body: string, latencyMs: number): AttemptResult {
  const status = response.statusCode ?? 0;
  if (status >= 200 && status <= 299) return { ok: true, status, latencyMs, responseBody: body };
  const failed = (error: AttemptError): AttemptResult => ({ ok: false, status, latencyMs, responseBody: body, error });
  if (status === 410) return failed({ code: 'gone', message: '410 Gone: the endpoint asks for no more notifications' });
  if (status >= 300 && status <= 399) {
    const location = response.headers.location;
    return failed({ code: 'redirect', message: `redirects are not followed: ${status}${location ? ` to ${location.slice(0, 200)}` : ''}` });
  }
  return failed({ code: 'http_status', message: `the endpoint answered ${status}` });
}

/**
 * Waits for the answer to a sent request and reads at most `maxBytes` of its body, then makes the
 * attempt's result. Once the status line has come, the deadline or a broken connection only cut the
 * body short: the status stands (a 2xx has been accepted, and trying again would send a duplicate).
 * Before it, they fail the attempt (`timeout`, `tls`, `network`). Never rejects.
 *
 * @example
 * ```ts
 * const request = https.request(url, { method: 'POST' });
 * request.end(body);
 * const result = await readResponse(request, { signal, started: performance.now(), timeoutMs: 10_000, maxBytes: 4096 });
 * ```
 */
export function readResponse(request: ClientRequest, options: ReadResponseOptions): Promise<AttemptResult> {
  const { signal, started, timeoutMs, maxBytes } = options;
  return new Promise<AttemptResult>((resolve) => {
    let response: IncomingMessage | null = null;
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const latency = () => Math.round(performance.now() - started);
    const settle = (result: AttemptResult, destroy: boolean) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (destroy) request.destroy();
      resolve(result);
    };
    const answered = (destroy: boolean) => {
      if (response !== null) settle(verdict(response, Buffer.concat(chunks, size).toString('utf8'), latency()), destroy);
    };
    const failed = (error: AttemptError) => settle({ ok: false, status: null, latencyMs: latency(), responseBody: '', error }, true);
    const onAbort = () => {
      if (response !== null) answered(true);
      else failed({ code: 'timeout', message: `no answer within ${timeoutMs} ms` });
    };
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (response !== null) answered(true);
      else failed(networkError(error));
    });
    request.on('response', (incoming) => {
      response = incoming;
      incoming.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = maxBytes - size;
        chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        size += Math.min(chunk.length, room);
        if (size >= maxBytes) answered(true);
      });
      incoming.on('end', () => answered(false));
      incoming.on('error', () => answered(true));
      incoming.on('close', () => answered(true));
    });
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}
