// Public API of @svc-licensing/server. Every export is listed by name: a rename is a visible decision.
export { createApp } from './app.js';
export type { AppOptions } from './app.js';
export { listen } from './node-server.js';
export type { ListenOptions, RunningServer } from './node-server.js';
export { createOpenApiDocument } from './openapi.js';
export type { OpenApiDocument } from './openapi.js';
export { defineRoute } from './http/route.js';
export type { RouteApi, RouteContext, RouteDef, RouteMethod, RouteServices, ServerHooks } from './http/route.js';
export { ApiError, statusForCode } from './http/errors.js';
export type { ApiErrorCode } from './http/errors.js';
export { createMemoryRateLimitStore, DEFAULT_RATE_LIMITS } from './http/rate-limit.js';
export type { RateLimits, RateLimitStore } from './http/rate-limit.js';
export { createJsonLogger } from './http/log.js';
export type { RequestLogger, RequestLogLine } from './http/log.js';
export { DEFAULT_BODY_LIMIT } from './http/body.js';
