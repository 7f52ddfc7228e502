import { getQuery, getRouterParams, H3, type H3Event } from 'h3';
import { FastResponse } from 'srvx';
import type { LicenseEngine } from '@svc-licensing/license-engine';
import { authenticate, ownerOnlyRefusal, type Principal } from './http/auth.js';
import { clientAddress } from './http/client-ip.js';
import { DEFAULT_BODY_LIMIT, readJsonBody } from './http/body.js';
import { CLIENT_CORS_HEADERS, CLIENT_PREFLIGHT_HEADERS } from './http/cors.js';
import { ApiError, errorResponse, JSON_CONTENT_TYPE, toErrorReply } from './http/errors.js';
import { createJsonLogger, describeCause, isoNow, type RequestLogger, type RequestLogLine } from './http/log.js';
import {
  binding, consume, consumeMany, createMemoryRateLimitStore, DEFAULT_RATE_LIMITS, licenseKeyBucket, rateLimitHeaders,
  type RateLimitResult, type RateLimits, type RateLimitStore,
} from './http/rate-limit.js';
import { defineRoute, toRouterPath, type AccountMail, type RouteDef, type RouteServices, type SenderDomainSettings, type ServerHooks } from './http/route.js';
import { mountMethodNotAllowed } from './http/method-not-allowed.js';
import { createAfterAnswer } from './http/after-answer.js';
import { createDnsResolver } from './dns-resolver.js';
import { validate } from './http/validate.js';
import { createOpenApiDocument } from './openapi.js';
import { clientRoutes } from './routes/client.js';
import { createReadyRoute, healthRoute } from './routes/health.js';
import type { ReadinessCheck } from './routes/health.js';
import { vendorRoutes } from './routes/index.js';
import { mountLinkPages } from './session/pages.js';
import { mountWebApps, type WebOptions } from './web/index.js';
import { mountPortalLinkPages } from './portal/link-pages.js';
import { portalRoutes } from './routes/portal.js';

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
}

interface RequestState {
  startedAt: number;
  /** Response headers of this request (CORS, rate limits), plain: a web `Headers` costs more. */
  headers: Record<string, string>;
  accountId?: string;
  errorCode?: string;
  cause?: unknown;
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
  };
  const openapiRoute = defineRoute({
    method: 'GET', path: '/v1/openapi.json', api: 'public', tag: 'Meta', summary: 'This OpenAPI 3.1 document',
    handler: () => openapi,
  });
  const readyRoute = createReadyRoute(options.readiness ?? (async () => null));
  const routes = [...vendorRoutes, ...clientRoutes, ...portalRoutes, healthRoute, readyRoute, openapiRoute, ...(options.routes ?? [])];
  const openapi = createOpenApiDocument(routes, { serverUrl: options.publicBaseUrl.replace(/\/+$/, '') });
  const clientPaths = new Set(routes.filter((r) => r.api === 'client').map((r) => r.path));

  const state = (event: H3Event) => event.context as unknown as { svc: RequestState };

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
      log(line);
    },
  });

  // CORS preflight of the client API: a route per path, so other requests pass no middleware.
  for (const path of clientPaths) {
    app.on('OPTIONS', toRouterPath(path), () => new FastResponse(null, { status: 204, headers: CLIENT_PREFLIGHT_HEADERS }));
  }

  const limit = (event: H3Event, results: RateLimitResult[]) => {
    const result = binding(results);
    const headers = rateLimitHeaders(result, now());
    Object.assign(state(event).svc.headers, headers);
    if (!result.allowed) throw new ApiError('rate_limited', 'Too many requests; retry after the time in Retry-After.', { headers });
  };

  const clientIp = (event: H3Event) => clientAddress(event, options.trustProxy === true);

  for (const def of routes) {
    app.on(def.method, toRouterPath(def.path), async (event) => {
      let accountId = '';
      let principal: Principal | null = null;
      const ip = clientIp(event);
      if (def.api === 'vendor') {
        principal = await authenticate(event, services.engine, publicOrigin);
        accountId = principal.accountId;
        state(event).svc.accountId = accountId;
        limit(event, [await consume(store, `vendor:${accountId}`, limits.vendorPerAccount, limits.windowMs, now())]);
        if (def.access === 'owner') {
          const refusal = ownerOnlyRefusal(principal);
          if (refusal !== null) throw refusal;
        }
      } else if (def.api === 'client') {
        Object.assign(state(event).svc.headers, CLIENT_CORS_HEADERS);
      }
      let query: unknown;
      let body: unknown;
      let invalid: { error: unknown } | undefined;
      try {
        query = def.query ? validate(def.query, getQuery(event), 'query') : undefined;
        body = def.body ? validate(def.body, await readJsonBody(event, bodyLimit), 'body') : undefined;
      } catch (error) {
        if (def.api !== 'client') throw error;
        invalid = { error }; // a refused client call still counts against its IP, and 429 comes first
      }
      if (def.api === 'client') {
        // Every call counts against its IP; one naming a key also against key + IP, both in one store round trip.
        const key = (body as { key?: unknown } | undefined)?.key;
        const buckets = [{ key: `client-ip:${ip}`, limit: limits.clientPerIp }];
        if (typeof key === 'string') buckets.push({ key: `client-key:${licenseKeyBucket(key)}:${ip}`, limit: limits.clientPerKeyAndIp });
        limit(event, await consumeMany(store, buckets, limits.windowMs, now()));
        if (invalid !== undefined) throw invalid.error;
      }
      const params = getRouterParams(event, { decode: true });
      const headers = state(event).svc.headers;
      const setHeader = (name: string, value: string) => void (headers[name.toLowerCase()] = value);
      // One fixed-shape literal: spreading the services into it cost a validate several microseconds.
      const { engine, hooks, mail, rateLimit, logError: logRouteError, afterAnswer, senderDomains: domains } = services;
      const result = await def.handler({
        engine, publicBaseUrl, hooks, mail, limits, rateLimit, logError: logRouteError, afterAnswer, senderDomains: domains,
        event, params, body, query, accountId, principal, ip, setHeader,
      });
      // A streamed answer (the account export) is passed through with this request's headers added.
      if (result instanceof Response) {
        for (const [name, value] of Object.entries(headers)) result.headers.set(name, value);
        return result;
      }
      // The JSON answer with its headers in one plain object (h3 would merge a web Headers per
      // request): this request's own object, not a copy.
      headers['content-type'] = JSON_CONTENT_TYPE;
      return new FastResponse(JSON.stringify(result), { status: def.status ?? 200, headers });
    });
  }
  mountLinkPages(app, services);
  mountPortalLinkPages(app, services);
  if (options.web !== false) mountWebApps(app, options.web ?? {});
  mountMethodNotAllowed(app, routes, clientPaths);
  background.attach(app);
  return app;
}
