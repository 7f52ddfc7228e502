import type * as v from 'valibot';
import type { H3Event } from 'h3';
import type { DnsResolver, Environment, LicenseEngine } from '@svc-licensing/license-engine';
import type { Principal } from './auth.js';
import type { RateLimits } from './rate-limit.js';
import type { Mailer } from '../mail/mailer.js';
import type { Validated } from './validate.js';
import type { AfterAnswer } from './after-answer.js';
import type { NotifyAllowance } from '../notifications/allowance.js';

/** Which interface a route belongs to: it decides authentication, rate limits and CORS. */
export type RouteApi = 'vendor' | 'client' | 'public';

export type RouteMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** What the server hands a route besides the request. */
export interface RouteServices {
  engine: LicenseEngine;
  /** Public address of the service, without `/v1` (e.g. `https://licensing.example.com`). */
  publicBaseUrl: string;
  hooks: ServerHooks;
  /** Sends the account e-mails (sign-in links, invitations, reopen links); null when none is configured. */
  mail: AccountMail | null;
  /**
   * Counts one call against each bucket (one-hour windows of the app's rate-limit store) and
   * throws `429 rate_limited` when any is over its limit.
   */
  rateLimit(event: H3Event, buckets: ReadonlyArray<{ key: string; limit: number }>): Promise<void>;
  /** The app's rate limits. */
  limits: RateLimits;
  /** Logs a failure that happened after the answer was sent (a background e-mail). */
  logError: (msg: string, error: unknown) => void;
  /** Runs work after the answer (a background e-mail); a failure is logged under `msg`, and `settled(app)` waits for it. */
  afterAnswer: AfterAnswer;
  /** How sender domains are checked: the DNS port and the SPF mechanism of the service's mail. */
  senderDomains: SenderDomainSettings;
  /** The operator's `--notify-allow`: what notification endpoint URLs may name besides public https hosts. */
  notifyAllowance: NotifyAllowance;
  /** The integration environments whose provider_a API key the webhook receiver can use (an address is configured). */
  providerAEnvironments: readonly Environment[];
}

/** Where account e-mails (sign-in links, invitations, reopen links) go out. */
export interface AccountMail {
  mailer: Mailer;
  /** The service's sender address, e.g. `no-reply@licensing.example.com`. */
  fromAddress: string;
  /** Display name of the sender; default `Licensing`. */
  fromName?: string;
}

/** What the sender-domain routes need from the host. */
export interface SenderDomainSettings {
  /** Looks up the published TXT records (`createDnsResolver`). */
  resolver: DnsResolver;
  /** The SPF mechanism vendors add to their domain's SPF record, e.g. `include:svc.example`. */
  spfMechanism: string;
}

/** Extension points (e-mail delivery). */
export interface ServerHooks {
  /**
   * Sends a license-key e-mail. `reserved: true` (after `POST /licenses` with `sendEmail`): the
   * engine already holds the reservation; send, release, and do not throw (the license exists),
   * unless `mustSend` (the portal's resend, which answers whether it was sent): then a failed send
   * throws `internal_error` after the release.
   * Otherwise (`send-key`): reserve with the engine, send, release; engine errors propagate.
   * Without this hook no e-mail is sent.
   */
  sendKeyEmail?: (input: { accountId: string; licenseId: string; reserved?: boolean; mustSend?: boolean }) => Promise<void>;
}

type Out<S> = S extends v.GenericSchema ? Validated<S> : undefined;

/** The request as a handler sees it: path parameters, validated query and body. */
export interface RouteContext<B, Q> extends RouteServices {
  event: H3Event;
  params: Record<string, string>;
  body: B;
  query: Q;
  /** The authenticated account (vendor routes only; empty otherwise). */
  accountId: string;
  /** Who is calling (vendor routes only; null otherwise): an API key or a dashboard session. */
  principal: Principal | null;
  /** The caller's IP address (the socket's, or `X-Forwarded-For` with `trustProxy`). */
  ip: string;
  /**
   * Client routes: `hashLicenseKey` of the body's `key`, computed once for the per-key rate limit
   * and handed to the engine's lookup (null when the body names no key, and on other routes).
   */
  keyHash: string | null;
  /**
   * Routes with `countsWhileHandled`: settles once the call is counted against its rate limits,
   * rejects with `429 rate_limited` when it is over one. The handler must not write, answer or
   * fail before it settles (the engine's `validate` takes it as `admitted`). Null on other routes,
   * which run once the call is counted.
   */
  admitted: Promise<void> | null;
  /** Adds a header to the success response (e.g. `set-cookie`). */
  setHeader(name: string, value: string): void;
}

/** A route: its method and path (OpenAPI form, `{id}`), schemas, documentation and handler. */
export interface RouteDef {
  method: RouteMethod;
  /** Full path with `{param}` segments, e.g. `/v1/products/{id}`. */
  path: string;
  api: RouteApi;
  tag: string;
  summary: string;
  body?: v.GenericSchema;
  query?: v.GenericSchema;
  /** Schema of the success body, for the OpenAPI document only. */
  response?: v.GenericSchema;
  /**
   * For the OpenAPI document only: the handler reads the JSON body itself (a signed webhook's
   * exact bytes), up to `limit` bytes (`413` beyond), instead of a `body` schema.
   */
  rawBody?: { description: string; limit: number };
  /** Success status; 200 unless given (201 for creations). */
  status?: number;
  /**
   * `owner`: only the account owner's dashboard session may call it; the pipeline answers an API
   * key `400 owner_session_required` and a member `403 forbidden` before the handler runs.
   * `not_member`: the owner's session or an API key may call it; a member is `403 forbidden`.
   */
  access?: 'owner' | 'not_member';
  /**
   * Every answer (errors included) carries `Cache-Control: no-store`: no browser or proxy cache
   * keeps it. Always so for `vendor` routes; the customer portal's routes set it.
   */
  noStore?: boolean;
  /**
   * Client routes: the handler starts while the call is counted against its rate limits (one
   * round trip to a shared limiter such as Redis), and gets `admitted` to wait for it.
   */
  countsWhileHandled?: boolean;
  /** Error codes this route may answer with, documented in the OpenAPI document. */
  errors?: readonly string[];
  /**
   * For the OpenAPI document only: the success body is text (`text/plain`, the `response` schema a
   * string), with an `ETag`; `notModified`: a matching `If-None-Match` answers `304` without a body.
   */
  text?: { notModified?: boolean };
  handler: (ctx: RouteContext<any, any>) => Promise<unknown> | unknown;
}

/**
 * Declares a route. The schemas validate the request and describe it in `/v1/openapi.json`.
 *
 * @example
 * export const getProduct = defineRoute({
 *   method: 'GET', path: '/v1/products/{id}', api: 'vendor', tag: 'Products', summary: 'Get a product',
 *   handler: ({ engine, accountId, params }) => engine.getProduct(accountId, params.id!),
 * });
 */
export function defineRoute<B extends v.GenericSchema | undefined = undefined, Q extends v.GenericSchema | undefined = undefined>(
  def: Omit<RouteDef, 'body' | 'query' | 'handler'> & {
    body?: B;
    query?: Q;
    handler: (ctx: RouteContext<Out<B>, Out<Q>>) => Promise<unknown> | unknown;
  },
): RouteDef {
  return def as RouteDef;
}

/** `/v1/products/{id}` → `/v1/products/:id` (h3's router syntax). */
export function toRouterPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}
