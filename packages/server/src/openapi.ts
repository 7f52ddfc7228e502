import { toJsonSchema, toJsonSchemaDefs, type ConversionConfig } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { view } from './http/contract.js';
import { statusForCode, type ApiErrorCode } from './http/errors.js';
import * as exportViews from './http/export-views.js';
import type { RouteDef } from './http/route.js';
import * as views from './http/views.js';
import { webhooksSection } from './openapi-webhooks.js';

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
        'Errors are `{ error: { code, message } }`. ' +
        'Response schemas describe this version exactly; within /v1 new fields, enum values and error codes may be added, ' +
        'so clients must ignore fields they do not know and treat unknown values as their generic case.',
    },
    servers: [{ url: options.serverUrl }],
    paths,
    webhooks: webhooksSection((s) => schema(s, 'output')),
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
      schemas: components(),
    },
  };
}

/** The OpenAPI 3.1 document served at `GET /v1/openapi.json`. */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, JsonObject>>;
  /** The notifications the service sends to vendors' endpoints, by type (OpenAPI 3.1). */
  webhooks: Record<string, JsonObject>;
  components: JsonObject;
}

/** The document's own schema, for its route (its operations and schemas are open JSON). */
export const OpenApiDocumentView = view<OpenApiDocument>()(v.strictObject({
  openapi: v.literal('3.1.0'),
  info: v.strictObject({ title: v.string(), version: v.string(), description: v.string() }),
  servers: v.array(v.strictObject({ url: v.string() })),
  paths: v.record(v.string(), v.record(v.string(), v.record(v.string(), v.unknown()))),
  webhooks: v.record(v.string(), v.record(v.string(), v.unknown())),
  components: v.record(v.string(), v.unknown()),
}));

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
    responses: { [status]: success(route), ...notModified(route), ...errorResponses(route) },
  };
  if (route.access === 'owner') op['x-owner-only'] = true;
  if (route.access === 'not_member') op['x-not-for-members'] = true;
  if (parameters.length > 0) op.parameters = parameters;
  if (route.body) {
    op.requestBody = { required: true, content: { 'application/json': { schema: schema(route.body, 'input') } } };
  } else if (route.rawBody) {
    op.requestBody = { required: true, description: route.rawBody.description, content: { 'application/json': {} } };
  }
  return op;
}

function success(route: RouteDef): JsonObject {
  if (!route.response) return { description: 'Success' };
  if (route.text) {
    const headers = { ETag: { description: 'The version of the body, for If-None-Match', schema: { type: 'string' } } };
    return { description: 'Success', headers, content: { 'text/plain': { schema: schema(route.response, 'output') } } };
  }
  return { description: 'Success', content: { 'application/json': { schema: schema(route.response, 'output') } } };
}

/** The `304` of a text answer revalidated with `If-None-Match`. */
function notModified(route: RouteDef): Record<string, JsonObject> {
  return route.text?.notModified ? { '304': { description: 'Not modified: If-None-Match names the current ETag' } } : {};
}

/** Each error status of the route with the codes it answers there: the body's `code` is one of them. */
function errorResponses(route: RouteDef): Record<string, JsonObject> {
  const codes = new Set<string>(route.errors ?? []);
  if (route.api === 'vendor') codes.add('unauthorized').add('rate_limited').add('forbidden');
  if (route.access === 'owner') codes.add('owner_session_required');
  if (route.api === 'client') codes.add('rate_limited');
  if (route.body) codes.add('invalid_request');
  codes.add('internal_error');
  const byStatus = new Map<number, { codes: string[]; description: string[] }>();
  const add = (status: number, code: string, description = code) => {
    const entry = byStatus.get(status) ?? { codes: [], description: [] };
    entry.codes.push(code);
    entry.description.push(description);
    byStatus.set(status, entry);
  };
  for (const code of codes) add(statusForCode(code as ApiErrorCode), code);
  if (route.body || route.rawBody) add(413, 'invalid_request', 'invalid_request (body too large)');
  const out: Record<string, JsonObject> = {};
  for (const [status, entry] of [...byStatus].sort(([a], [b]) => a - b)) {
    const body = v.strictObject({ error: v.strictObject({ code: v.picklist(entry.codes), message: v.string() }) });
    out[String(status)] = { description: entry.description.join(', '), content: { 'application/json': { schema: schema(body, 'output') } } };
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

/**
 * The named response schemas, `#/components/schemas/<name>`: every `...View` of views.ts and
 * export-views.ts under its name without `View` (an operation's schema refers to them by `$ref`).
 */
const NAMED: Record<string, v.GenericSchema> = Object.fromEntries(
  Object.entries<unknown>({ ...views, ...exportViews })
    .filter(([name, s]) => name.endsWith('View') && typeof s === 'object')
    .map(([name, s]) => [name.slice(0, -'View'.length), s as v.GenericSchema]),
);

const refToComponent = ({ referenceId }: { referenceId: string }): string => `#/components/schemas/${referenceId}`;

/**
 * A route's schemas leave out what JSON Schema cannot say (a custom check), as they always did for
 * the extra routes a host adds; the named views must convert whole (see `components`), so the
 * document never states less than they do.
 */
const CONFIG = {
  input: { target: 'draft-2020-12', errorMode: 'ignore', typeMode: 'input' },
  output: { target: 'draft-2020-12', errorMode: 'ignore', typeMode: 'output', definitions: NAMED, overrideRef: refToComponent },
} as const satisfies Record<string, ConversionConfig>;

/** `components.schemas`: the named views, each converted whole (a part JSON Schema cannot say throws). */
function components(): Record<string, JsonObject> {
  const defs = toJsonSchemaDefs(NAMED, { target: 'draft-2020-12', errorMode: 'throw', typeMode: 'output', overrideRef: refToComponent });
  return Object.fromEntries(Object.entries(defs).map(([name, s]) => [name, strip(s as JsonObject)]));
}

function schema(s: v.GenericSchema, typeMode: 'input' | 'output'): JsonObject {
  return strip(toJsonSchema(s, CONFIG[typeMode]) as JsonObject);
}

/** Without `$schema` (the document's dialect is 2020-12) and `$defs` (they are the components). */
function strip(s: JsonObject): JsonObject {
  const { $schema: _schema, $defs: _defs, ...rest } = s;
  return rest;
}
