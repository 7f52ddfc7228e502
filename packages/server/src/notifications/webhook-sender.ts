import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { pinnedLookup, systemResolver } from './address-resolver.js';
import { NO_ALLOWANCE } from './allowance.js';
import type { NotifyAllowance } from './allowance.js';
import { checkEndpointUrl, resolveEndpointAddresses } from './endpoint-url.js';
import type { AddressResolver, CheckedUrl, ResolvedAddress } from './endpoint-url.js';
import { webhookHeaders } from './signature.js';
import type { AttemptError, AttemptResult } from './attempt-result.js';
import { readResponse } from './read-response.js';

/** One attempt to deliver one notification. */
export interface AttemptRequest {
  /** The endpoint's URL (checked again here: the allowance may have changed since creation). */
  url: string;
  /** `webhook-id`: the same on every attempt of the notification. */
  id: string;
  /** The exact body (see `webhookBody`). */
  body: string;
  /** The secrets that sign this attempt (see `activeSigningSecrets`). */
  secrets: readonly string[];
}

/** Options of {@link createWebhookSender}. */
export interface WebhookSenderOptions {
  /** The operator's `--notify-allow` (default: nothing allowed). */
  allowance?: NotifyAllowance;
  /** Resolves endpoint hosts (default: the system's resolver). */
  resolve?: AddressResolver;
  /**
   * Certificates to trust instead of Node's bundled roots: for a private CA, and for tests. Never a
   * way to switch verification off: there is none.
   */
  trustedCertificates?: string | Buffer | readonly (string | Buffer)[];
  /** The whole attempt's limit, DNS to status line: 10 s by default. */
  timeoutMs?: number;
  /** At most this many bytes of the response body are read and kept: 4 KiB by default. */
  maxResponseBytes?: number;
  /** The clock of `webhook-timestamp` (epoch ms; default `Date.now`). */
  now?: () => number;
}

/** Sends notifications: one POST per {@link WebhookSender.send}. */
export interface WebhookSender {
  /** Makes one attempt; every network outcome is a value, never a rejection. */
  send(request: AttemptRequest): Promise<AttemptResult>;
  /** Closes idle kept-alive connections. */
  close(): void;
}

/** The default total limit of one attempt. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** The default cap on the response body kept. */
export const MAX_RESPONSE_BYTES = 4096;

const USER_AGENT = 'svc-licensing-notifications/1';

class NodeWebhookSender implements WebhookSender {
  readonly #allowance: NotifyAllowance;
  readonly #resolve: AddressResolver;
  readonly #timeoutMs: number;
  readonly #maxResponseBytes: number;
  readonly #now: () => number;
  readonly #httpsAgent: https.Agent;
  readonly #httpAgent = new http.Agent({ keepAlive: true });

  constructor(options: WebhookSenderOptions) {
    this.#allowance = options.allowance ?? NO_ALLOWANCE;
    this.#resolve = options.resolve ?? systemResolver();
    this.#timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
    this.#maxResponseBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    this.#now = options.now ?? Date.now;
    const ca = options.trustedCertificates;
    this.#httpsAgent = new https.Agent({ keepAlive: true, ...(ca === undefined ? {} : { ca: typeof ca === 'string' || Buffer.isBuffer(ca) ? ca : [...ca] }) });
  }

  async send(request: AttemptRequest): Promise<AttemptResult> {
    const started = performance.now();
    const failure = (error: AttemptError): AttemptResult => ({
      ok: false, status: null, latencyMs: Math.round(performance.now() - started), responseBody: '', error,
    });
    const checked = checkEndpointUrl(request.url, this.#allowance);
    if (!checked.ok) return failure({ code: 'refused', message: checked.refusal.message, refusal: checked.refusal.code });
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.#timeoutMs);
    try {
      let addresses: ResolvedAddress[];
      try {
        const check = await untilAborted(resolveEndpointAddresses(checked.checked, this.#allowance, this.#resolve), deadline.signal);
        if (!check.ok) return failure({ code: 'refused', message: check.refusal.message, refusal: check.refusal.code });
        addresses = check.addresses;
      } catch (error) {
        if (deadline.signal.aborted) return failure({ code: 'timeout', message: `no DNS answer for ${checked.checked.host} within ${this.#timeoutMs} ms` });
        const code = (error as NodeJS.ErrnoException).code ?? 'error';
        return failure({ code: 'dns', message: `cannot resolve ${checked.checked.host}: ${code}` });
      }
      return await this.#post(checked.checked, addresses, request, deadline.signal, started);
    } finally {
      clearTimeout(timer);
    }
  }

  #post(target: CheckedUrl, addresses: ResolvedAddress[], request: AttemptRequest, signal: AbortSignal, started: number): Promise<AttemptResult> {
    const body = Buffer.from(request.body, 'utf8');
    const signed = webhookHeaders({ id: request.id, timestamp: Math.floor(this.#now() / 1000), body: request.body }, request.secrets);
    const secure = target.url.protocol === 'https:';
    const outgoing = (secure ? https : http).request(target.url, {
      method: 'POST',
      agent: secure ? this.#httpsAgent : this.#httpAgent,
      // Connect only to the addresses just checked (an IP literal needs no lookup and was checked itself).
      lookup: pinnedLookup(target.host, addresses) as never,
      headers: { 'content-type': 'application/json', 'content-length': String(body.length), 'user-agent': USER_AGENT, ...signed },
    });
    outgoing.end(body);
    return readResponse(outgoing, { signal, started, timeoutMs: this.#timeoutMs, maxBytes: this.#maxResponseBytes });
  }

  close(): void {
    this.#httpsAgent.destroy();
    this.#httpAgent.destroy();
  }
}

/** Resolves or rejects with `promise`, or rejects as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The notification sender over `node:https`: checks the URL and the addresses its host resolves to
 * (see `checkEndpointUrl`), connects only to those addresses, POSTs the signed body, follows no
 * redirect, keeps at most 4 KiB of the answer and gives up after 10 s. Any 2xx is success; `410`
 * comes back as the error `gone` (the caller disables the endpoint).
 *
 * @example
 * ```ts
 * const sender = createWebhookSender({ allowance: NO_ALLOWANCE });
 * const result = await sender.send({ url: 'https://hooks.example.com/svc', id: 'msg_1', body, secrets: [secret] });
 * if (!result.ok) console.log(result.error.code, result.error.message); // e.g. 'timeout'
 * ```
 */
export function createWebhookSender(options: WebhookSenderOptions = {}): WebhookSender {
  return new NodeWebhookSender(options);
}
