import { getQuery, getRouterParams, H3, type H3Event } from 'h3';
import { FastResponse } from 'srvx';
import { hashLicenseKey } from '@svc-licensing/cert-format';
import type { LicenseEngine } from '@svc-licensing/license-engine';
import { accessRefusal, authenticate, type Principal } from './http/auth.js';
import { clientAddress } from './http/client-ip.js';
import { DEFAULT_BODY_LIMIT, readJsonBody } from './http/body.js';
import { CLIENT_CORS_HEADERS, CLIENT_PREFLIGHT_HEADERS, CLIENT_GET_PREFLIGHT_HEADERS } from './http/cors.js';
import { ApiError, errorResponse, JSON_CONTENT_TYPE, toErrorReply } from './http/errors.js';
import { createJsonLogger, describeCause, isoNow, type RequestLogger, type RequestLogLine } from './http/log.js';
import {
  binding, consume, consumeMany, createMemoryRateLimitStore, DEFAULT_RATE_LIMITS, rateLimitHeaders,
  type RateLimitResult, type RateLimits, type RateLimitStore,
} from './http/rate-limit.js';
import { clientBuckets, createFloatingKeys, type FloatingKeys } from './http/floating-keys.js';
import { defineRoute, toRouterPath, type AccountMail, type RouteDef, type RouteServices, type SenderDomainSettings, type ServerHooks } from './http/route.js';
import { mountMethodNotAllowed } from './http/method-not-allowed.js';
import { createAfterAnswer } from './http/after-answer.js';
import { createDnsResolver } from './dns-resolver.js';
import { validate } from './http/validate.js';
import { createOpenApiDocument, OpenApiDocumentView } from './openapi.js';
import { clientRoutes } from './routes/client.js';
import { createReadyRoute, healthRoute } from './routes/health.js';
import type { ReadinessCheck } from './routes/health.js';
import { vendorRoutes } from './routes/index.js';
import { mountLinkPages } from './session/pages.js';
import { mountOwnerEmailPage } from './session/owner-email-page.js';
import { mountWebApps, type WebOptions } from './web/index.js';
import { mountPortalLinkPages } from './portal/link-pages.js';
import { portalRoutes } from './routes/portal.js';
import { NO_ALLOWANCE, type NotifyAllowance } from './notifications/allowance.js';
import type { ProviderAClient } from './provider-a-client.js';

/** Options of {@link createApp}. */
export interface AppOptions {
  engine: LicenseEngine;
  /** Public address of the service without `/v1`, used for `webhookUrl` (e.g. `https://licensing.example.com`). */
  publicBaseUrl: string;
  /** Rate limits; unset values take the spec's. */
  limits?: Partial<RateLimits>;
  /** Where rate-limit counters live; in process memory by default. */
  rateLimitStore?: RateLimitStore;
  /** Largest accepted request body in bytes; 64 KiB by default. */
  bodyLimit?: number;
  /** One JSON line per request to stdout by default; `false` silences it. */
  log?: RequestLogger | false;
  /** Time source of the rate-limit windows. */
  clock?: { now(): number };
  /** Count client API calls by the last `X-Forwarded-For` entry (the address your reverse proxy saw); only behind a proxy you run. */
  trustProxy?: boolean;
  /** Extension points (e-mail delivery). */
  hooks?: ServerHooks;
  /**
   * Sender domains: the DNS resolver that checks them (default: `node:dns` with the system's
   * servers) and the SPF mechanism vendors publish (default `include:<host of publicBaseUrl>`).
   */
  senderDomains?: Partial<SenderDomainSettings>;
  /** Extra routes mounted with the same pipeline (auth, limits, validation, errors) and listed in the OpenAPI document. */
  routes?: RouteDef[];
  /** Sends account e-mails (sign-in links, member invitations, reopen links); without it none is sent. */
  mail?: AccountMail;
  /** Where failures after the answer (a background e-mail) are reported; a JSON line on stdout by default. */
  onError?: (msg: string, error: unknown) => void;
  /** The browser apps (the dashboard at `/dashboard/`): where their build is; `false` serves none. */
  web?: WebOptions | false;
  /** Readiness behind `GET /ready` (e.g. a MySQL store's `health`); always ready without it. */
  readiness?: ReadinessCheck;
  /** The operator's `--notify-allow` for notification endpoint URLs (default: public https hosts only). */
  notifyAllowance?: NotifyAllowance;
  /**
   * The provider_a customer API client given to `createWebhookRoutes`, if any: a provider_a
   * integration whose API key it cannot use (no address for its environment) gets an
   * `api_key_unused` warning.
   */
  providerA?: Pick<ProviderAClient, 'environments'>;
}

interface RequestState {
  startedAt: number;
  /** Response headers of this request (CORS, rate limits), plain: a web `Headers` costs more. */
  headers: Record<string, string>;
  accountId?: string;
  errorCode?: string;
  cause?: unknown;
  reason?: string;
}

/** What every route's handler takes from the app. */
interface Pipeline {
  services: RouteServices;
  store: RateLimitStore;
  limits: RateLimits;
  bodyLimit: number;
  publicBaseUrl: string;
  publicOrigin: string;
  now: () => number;
  limit: (event: H3Event, results: RateLimitResult[]) => void;
  clientIp: (event: H3Event) => string;
  /** License keys this process answered as floating (their calls are counted per key and machine). */
  floatingKeys: FloatingKeys;
}

/** This request's state, kept on h3's event context. */
const state = (event: H3Event) => event.context as unknown as { svc: RequestState };

/**
 * The h3 handler of one route: authentication, access and the account's limit (vendor API), CORS
 * and the IP and key limits (client API), validation, the route's handler, and its answer with this
 * request's headers.
 */
function routeHandler(def: RouteDef, pipeline: Pipeline) {
  const { services, store, limits, bodyLimit, publicBaseUrl, publicOrigin, now, limit, clientIp, floatingKeys } = pipeline;
  const noStore = def.api === 'vendor' || def.noStore === true;
  return async (event: H3Event) => {
    let accountId = '';
    let principal: Principal | null = null;
    const ip = clientIp(event);
    // An account's or a customer's private data, secrets among it (keys): no cache may keep any of it.
    if (noStore) state(event).svc.headers['cache-control'] = 'no-store';
    if (def.api === 'vendor') {
      principal = await authenticate(event, services.engine, publicOrigin);
      accountId = principal.accountId;
      state(event).svc.accountId = accountId;
      limit(event, [await consume(store, `vendor:${accountId}`, limits.vendorPerAccount, limits.windowMs, now())]);
      const refusal = accessRefusal(def.access, principal);
      if (refusal !== null) throw refusal;
    } else if (def.api === 'client') {
      Object.assign(state(event).svc.headers, CLIENT_CORS_HEADERS);
    }
    let query: unknown;
    let body: unknown;
    let invalid: { error: unknown } | undefined;
    let keyHash: string | null = null;
    let admitted: Promise<void> | null = null;
    try {
      query = def.query ? validate(def.query, getQuery(event), 'query') : undefined;
      body = def.body ? validate(def.body, await readJsonBody(event, bodyLimit), 'body') : undefined;
    } catch (error) {
      if (def.api !== 'client') throw error;
      invalid = { error }; // a refused client call still counts against its IP, and 429 comes first
    }
    if (def.api === 'client') {
      // Every call counts against its IP; one naming a key also against key + IP, both in one store
      // round trip; keys this process answered as floating per key and machine (docs/floating-seats.md).
      const { key, fingerprint } = (body ?? {}) as { key?: unknown; fingerprint?: unknown };
      keyHash = typeof key === 'string' ? hashLicenseKey(key) : null;
      const buckets = clientBuckets(limits, floatingKeys, { ip, keyHash, fingerprint, now: now() });
      const counted = consumeMany(store, buckets, limits.windowMs, now()).then((results) => limit(event, results));
      if (def.countsWhileHandled === true && invalid === undefined) {
        admitted = counted; // the handler waits for it before it writes, answers or fails
        counted.catch(() => undefined);
      } else {
        await counted;
        if (invalid !== undefined) throw invalid.error;
      }
    }
    const params = getRouterParams(event, { decode: true });
    const headers = state(event).svc.headers;
    const setHeader = (name: string, value: string) => void (headers[name.toLowerCase()] = value);
    // One fixed-shape literal: spreading the services into it cost a validate several microseconds.
    const { engine, hooks, mail, rateLimit, logError: logRouteError, afterAnswer, senderDomains: domains, notifyAllowance, providerAEnvironments } = services;
    const result = await def.handler({
      engine, publicBaseUrl, hooks, mail, limits, rateLimit, logError: logRouteError, afterAnswer, senderDomains: domains, notifyAllowance, providerAEnvironments,
      event, params, body, query, accountId, principal, ip, keyHash, admitted, setHeader,
    });
    if (keyHash !== null && typeof result === 'object' && result !== null && 'certificate' in result) {
      const lease = (result as { lease?: { leaseSeconds: number } }).lease;
      floatingKeys.answered(keyHash, lease ? lease.leaseSeconds : null, now());
    }
    // A streamed answer (the account export) is passed through with this request's headers added.
    if (result instanceof Response) {
      for (const [name, value] of Object.entries(headers)) result.headers.set(name, value);
      return result;
    }
    // The JSON answer with its headers in one plain object (h3 would merge a web Headers per
    // request): this request's own object, not a copy.
    headers['content-type'] = JSON_CONTENT_TYPE;
    return new FastResponse(JSON.stringify(result), { status: def.status ?? 200, headers });
  };
}

/**
 * Builds the HTTP app: the vendor API, the client API, `GET /health` and `GET /v1/openapi.json`.
 * Run it in-process with `app.request(...)` / `app.fetch(request)` or on Node with `listen`.
 *
 * @example
 * const app = createApp({ engine, publicBaseUrl: 'https://licensing.example.com' });
 * const res = await app.request('/health'); // 200 { status: 'ok' }
 */
export function createApp(options: AppOptions): H3 {
  const limits: RateLimits = { ...DEFAULT_RATE_LIMITS, ...options.limits };
  const store = options.rateLimitStore ?? createMemoryRateLimitStore();
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const now = () => (options.clock ?? Date).now();
  const log = options.log === false ? null : (options.log ?? createJsonLogger());
  const publicBaseUrl = options.publicBaseUrl.replace(/\/+$/, '');
  const publicOrigin = new URL(publicBaseUrl).origin;
  const logError =
    options.onError ??
    ((msg: string, error: unknown) =>
      process.stdout.write(`${JSON.stringify({ time: isoNow(), msg, error: (error as Error)?.message ?? String(error) })}\n`));
  const background = createAfterAnswer(logError);
  const senderDomains: SenderDomainSettings = {
    resolver: options.senderDomains?.resolver ?? createDnsResolver(),
    spfMechanism: options.senderDomains?.spfMechanism ?? `include:${new URL(publicBaseUrl).hostname}`,
  };
  const services: RouteServices = {
    engine: options.engine,
    publicBaseUrl,
    hooks: options.hooks ?? {},
    mail: options.mail ?? null,
    limits,
    rateLimit: async (event, buckets) => limit(event, await consumeMany(store, buckets, limits.windowMs, now())),
    logError,
    afterAnswer: background.afterAnswer,
    senderDomains,
    notifyAllowance: options.notifyAllowance ?? NO_ALLOWANCE,
    providerAEnvironments: options.providerA?.environments ?? [],
  };
  const openapiRoute = defineRoute({
    method: 'GET', path: '/v1/openapi.json', api: 'public', tag: 'Meta', summary: 'This OpenAPI 3.1 document',
    response: OpenApiDocumentView,
    handler: () => openapi,
  });
  const readyRoute = createReadyRoute(options.readiness ?? (async () => null));
  const routes = [...vendorRoutes, ...clientRoutes, ...portalRoutes, healthRoute, readyRoute, openapiRoute, ...(options.routes ?? [])];
  const openapi = createOpenApiDocument(routes, { serverUrl: options.publicBaseUrl.replace(/\/+$/, '') });
  const clientPaths = new Set(routes.filter((r) => r.api === 'client').map((r) => r.path));

  const app = new H3({
    silent: true,
    onRequest(event) {
      state(event).svc = { startedAt: performance.now(), headers: {} };
    },
    onError(error, event) {
      const reply = toErrorReply(error);
      const s = state(event).svc;
      if (s) {
        s.errorCode = reply.code;
        if (reply.internal !== null) s.cause = reply.internal;
        if (reply.reason !== undefined) s.reason = reply.reason;
      }
      return errorResponse(reply, new Headers({ ...s?.headers, ...reply.headers }));
    },
    onResponse(response, event) {
      const s = state(event).svc;
      if (log === null || s === undefined) return;
      const line: RequestLogLine = {
        time: isoNow(),
        method: event.req.method,
        path: event.url.pathname,
        status: response.status,
        durationMs: Math.round((performance.now() - s.startedAt) * 10) / 10,
      };
      if (s.accountId !== undefined) line.account = s.accountId;
      if (s.errorCode !== undefined) line.error = s.errorCode;
      if (s.cause !== undefined) line.cause = describeCause(s.cause);
      if (s.reason !== undefined) line.reason = s.reason;
      log(line);
    },
  });

  // CORS preflight of the client API: a route per path, so other requests pass no middleware.
  for (const path of clientPaths) {
    const reads = routes.some((r) => r.api === 'client' && r.path === path && r.method === 'GET');
    const headers = reads ? CLIENT_GET_PREFLIGHT_HEADERS : CLIENT_PREFLIGHT_HEADERS;
    app.on('OPTIONS', toRouterPath(path), () => new FastResponse(null, { status: 204, headers }));
  }

  const limit = (event: H3Event, results: RateLimitResult[]) => {
    const result = results.length === 1 ? results[0]! : binding(results);
    if (result.allowed) {
      rateLimitHeaders(result, now(), state(event).svc.headers);
      return;
    }
    const headers = rateLimitHeaders(result, now());
    Object.assign(state(event).svc.headers, headers);
    throw new ApiError('rate_limited', 'Too many requests; retry after the time in Retry-After.', { headers });
  };

  const clientIp = (event: H3Event) => clientAddress(event, options.trustProxy === true);

  const pipeline: Pipeline = { services, store, limits, bodyLimit, publicBaseUrl, publicOrigin, now, limit, clientIp, floatingKeys: createFloatingKeys() };
  for (const def of routes) {
    const handler = routeHandler(def, pipeline);
    app.on(def.method, toRouterPath(def.path), handler);
    // HEAD is answered wherever GET is, as the 405's `Allow` says (else the path's 405 catch-all takes it).
    if (def.method === 'GET') app.on('HEAD', toRouterPath(def.path), handler);
  }
  mountLinkPages(app, services);
  mountOwnerEmailPage(app, services);
  mountPortalLinkPages(app, services);
  if (options.web !== false) mountWebApps(app, options.web ?? {});
  mountMethodNotAllowed(app, routes, clientPaths);
  background.attach(app);
  return app;
}
