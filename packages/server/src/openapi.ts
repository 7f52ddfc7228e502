import { toJsonSchema, type ConversionConfig } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { statusForCode, type ApiErrorCode } from './http/errors.js';
import type { RouteDef } from './http/route.js';
import { ErrorBodyView } from './http/views.js';

type JsonObject = Record<string, unknown>;

/**
 * Builds the OpenAPI 3.1 document of a set of routes from the valibot schemas that validate
 * their requests, so the document cannot drift from what the server accepts.
 *
 * @example
 * const doc = createOpenApiDocument(routes, { serverUrl: 'https://licensing.example.com' });
 * Object.keys(doc.paths); // ['/v1/products', ...]
 */
export function createOpenApiDocument(routes: readonly RouteDef[], options: { serverUrl: string }): OpenApiDocument {
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of routes) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Software Licensing Service',
      version: '1',
      description:
        'Vendor API (bearer API key, or the dashboard session cookie `svc_session`) and client API (no authentication). ' +
        'Operations marked `x-owner-only` need the account owner\'s session: an API key gets 400 owner_session_required, a member 403 forbidden. ' +
        'A state-changing request made with the cookie must be same-origin (Origin or Sec-Fetch-Site), else 403 forbidden. ' +
        'Errors are `{ error: { code, message } }`.',
    },
    servers: [{ url: options.serverUrl }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'A secret key `svc_sk_` + 32 characters.' },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'svc_session',
          description:
            'Dashboard session of the account owner or a member, set by the one-time sign-in link (HttpOnly, SameSite=Lax). ' +
            'State-changing requests must carry a same-origin Origin or Sec-Fetch-Site: same-origin header.',
        },
      },
      schemas: { Error: schema(ErrorBodyView, 'output') },
    },
  };
}

/** The OpenAPI 3.1 document served at `GET /v1/openapi.json`. */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, JsonObject>>;
  components: JsonObject;
}

function operation(route: RouteDef): JsonObject {
  const parameters: JsonObject[] = [];
  for (const [, name] of route.path.matchAll(/\{([^}]+)\}/g)) {
    parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  if (route.query) {
    const query = schema(route.query, 'input') as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, prop] of Object.entries(query.properties ?? {})) {
      parameters.push({ name, in: 'query', required: query.required?.includes(name) ?? false, schema: prop });
    }
  }
  const status = String(route.status ?? 200);
  const op: JsonObject = {
    operationId: operationId(route),
    tags: [route.tag],
    summary: route.summary,
    security: route.api !== 'vendor' ? [] : route.access === 'owner' ? [{ sessionCookie: [] }] : [{ apiKey: [] }, { sessionCookie: [] }],
    responses: { [status]: success(route), ...errorResponses(route) },
  };
  if (route.access === 'owner') op['x-owner-only'] = true;
  if (parameters.length > 0) op.parameters = parameters;
  if (route.body) {
    op.requestBody = { required: true, content: { 'application/json': { schema: schema(route.body, 'input') } } };
  }
  return op;
}

function success(route: RouteDef): JsonObject {
  if (!route.response) return { description: 'Success' };
  return { description: 'Success', content: { 'application/json': { schema: schema(route.response, 'output') } } };
}

function errorResponses(route: RouteDef): Record<string, JsonObject> {
  const codes = new Set<string>(route.errors ?? []);
  if (route.api === 'vendor') codes.add('unauthorized').add('rate_limited').add('forbidden');
  if (route.access === 'owner') codes.add('owner_session_required');
  if (route.api === 'client') codes.add('rate_limited');
  if (route.body) codes.add('invalid_request');
  codes.add('internal_error');
  const byStatus = new Map<number, string[]>();
  for (const code of codes) {
    const status = statusForCode(code as ApiErrorCode);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  if (route.body) byStatus.set(413, ['invalid_request (body too large)']);
  const out: Record<string, JsonObject> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    out[String(status)] = { description: list.join(', '), content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  }
  return out;
}

function operationId(route: RouteDef): string {
  const words = route.path
    .replace(/^\/v1\//, '/')
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith('{') ? `by-${part.slice(1, -1)}` : part));
  return [route.method.toLowerCase(), ...words]
    .join('-')
    .replace(/[^a-zA-Z0-9]+(.)/g, (_, c: string) => c.toUpperCase());
}

const CONFIG: ConversionConfig = { target: 'draft-2020-12', errorMode: 'ignore' };

function schema(s: v.GenericSchema, typeMode: 'input' | 'output'): JsonObject {
  const { $schema: _ignored, ...rest } = toJsonSchema(s, { ...CONFIG, typeMode }) as JsonObject;
  return rest;
}
