import type * as v from 'valibot';
import type { H3Event } from 'h3';
import type { LicenseEngine } from '@svc-licensing/license-engine';
import type { Validated } from './validate.js';

/** Which interface a route belongs to: it decides authentication, rate limits and CORS. */
export type RouteApi = 'vendor' | 'client' | 'public';

export type RouteMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** What the server hands a route besides the request. */
export interface RouteServices {
  engine: LicenseEngine;
  /** Public address of the service, without `/v1` (e.g. `https://licensing.example.com`). */
  publicBaseUrl: string;
  hooks: ServerHooks;
}

/** Extension points (e-mail delivery). */
export interface ServerHooks {
  /**
   * Sends a license-key e-mail. `reserved: true` (after `POST /licenses` with `sendEmail`): the
   * engine already holds the reservation; send, release, and do not throw (the license exists).
   * Otherwise (`send-key`): reserve with the engine, send, release; engine errors propagate.
   * Without this hook no e-mail is sent.
   */
  sendKeyEmail?: (input: { accountId: string; licenseId: string; reserved?: boolean }) => Promise<void>;
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
  /** Success status; 200 unless given (201 for creations). */
  status?: number;
  /** Error codes this route may answer with, documented in the OpenAPI document. */
  errors?: readonly string[];
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
