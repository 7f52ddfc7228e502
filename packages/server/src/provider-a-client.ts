import * as v from 'valibot';
import type { Environment } from '@svc-licensing/license-engine';

/** A provider_a customer as the provider's API returns it. */
export interface ProviderACustomer {
  id: string;
  email: string;
  name: string | null;
}

export interface ProviderAClientOptions {
  /**
   * API base address per integration environment (no trailing slash needed), e.g.
   * `{ live: 'https://api.provider-a.example', sandbox: 'https://sandbox-api.provider-a.example' }`.
   * A single string serves both; an environment left out has no lookups (see `environments`).
   */
  baseUrl: string | Readonly<Partial<Record<Environment, string>>>;
  /** Whole-request timeout in milliseconds. Default 5 000. */
  timeoutMs?: number;
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch;
}

/** Looks up provider_a customers with an integration's read-only API key. */
export interface ProviderAClient {
  /** The integration environments it has an API address for: an API key of another environment's integration cannot be used. */
  readonly environments: readonly Environment[];
  /**
   * The customer, or null when the provider has no customer with this ID (404). Rejects with a
   * `ProviderAFetchError` on a timeout, a network failure, any other status or an unexpected body,
   * and when it has no address for the environment.
   */
  getCustomer(input: { apiKey: string; customerId: string; environment: Environment }): Promise<ProviderACustomer | null>;
}

/**
 * Why a provider_a customer lookup failed (timeout, network, HTTP status, body). The API key is never in it.
 *
 * @example
 * ```ts
 * const customer = await client.getCustomer(input).catch((error: unknown) => {
 *   if (ProviderAFetchError.is(error)) console.log(error.status); // 503, or null for a timeout
 *   return null;
 * });
 * ```
 */
export class ProviderAFetchError extends Error {
  readonly code = 'provider_fetch_failed' as const;
  readonly status: number | null;
  constructor(message: string, options: { status?: number | null; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProviderAFetchError';
    this.status = options.status ?? null;
  }

  /** Works across module copies, unlike `instanceof`. */
  static is(error: unknown): error is ProviderAFetchError {
    return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'provider_fetch_failed';
  }
}

const responseSchema = v.object({
  data: v.object({
    id: v.pipe(v.string(), v.minLength(1)),
    email: v.pipe(v.string(), v.trim(), v.email()),
    name: v.nullish(v.string(), null),
  }),
});

/**
 * An HTTP client for provider_a's customer API: `GET <base>/customers/<id>` with
 * `Authorization: Bearer <api key>`, answered `{ data: { id, email, name } }`. The webhook receiver
 * uses it to learn an unknown customer's e-mail at once instead of waiting for `customer.created`.
 *
 * @example
 * ```ts
 * const client = createProviderAClient({
 *   baseUrl: { live: 'https://api.provider-a.example', sandbox: 'https://sandbox-api.provider-a.example' },
 *   timeoutMs: 3000,
 * });
 * const customer = await client.getCustomer({ apiKey, customerId: 'ctm_01h...', environment: 'live' });
 * customer?.email; // 'ada@example.com'
 * ```
 */
export function createProviderAClient(options: ProviderAClientOptions): ProviderAClient {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const bases: Partial<Record<Environment, string>> =
    typeof options.baseUrl === 'string' ? { sandbox: options.baseUrl, live: options.baseUrl } : { ...options.baseUrl };
  const environments = (['sandbox', 'live'] as const).filter((e) => typeof bases[e] === 'string' && bases[e] !== '');
  return {
    environments,
    async getCustomer({ apiKey, customerId, environment }) {
      const base = bases[environment];
      if (base === undefined || base === '') throw new ProviderAFetchError(`no provider_a API address for ${environment} integrations`);
      const url = `${base.replace(/\/+$/, '')}/customers/${encodeURIComponent(customerId)}`;
      const doFetch = options.fetch ?? globalThis.fetch;
      let response: Response;
      let body: unknown;
      try {
        response = await doFetch(url, {
          headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' },
          signal: AbortSignal.timeout(timeoutMs),
          redirect: 'error',
        });
        if (response.status === 404) return null;
        if (!response.ok) {
          throw new ProviderAFetchError(`provider_a customer lookup answered HTTP ${response.status}`, { status: response.status });
        }
        body = await response.json();
      } catch (error) {
        if (ProviderAFetchError.is(error)) throw error;
        const timedOut = (error as { name?: unknown }).name === 'TimeoutError';
        throw new ProviderAFetchError(
          timedOut ? `provider_a customer lookup timed out after ${timeoutMs} ms` : 'provider_a customer lookup failed',
          { cause: error },
        );
      }
      const parsed = v.safeParse(responseSchema, body);
      if (!parsed.success) throw new ProviderAFetchError('provider_a customer lookup returned an unexpected body', { status: response.status });
      return { id: parsed.output.data.id, email: parsed.output.data.email, name: parsed.output.data.name };
    },
  };
}
