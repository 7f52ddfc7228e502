import { expect, it } from 'vitest';
import { createApp } from '../../src/index.js';
import { createHarness, PUBLIC_BASE_URL } from '../support/harness.js';

it('documents exactly the routes the app registers (paths and methods) in an OpenAPI 3.1 document', async () => {
  const h = await createHarness('in-process');
  const app = createApp({ engine: h.engine, publicBaseUrl: PUBLIC_BASE_URL, log: false });
  const res = await app.fetch(new Request('http://localhost/v1/openapi.json'));
  expect(res.status).toBe(200);
  const doc = await res.json();
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.servers).toEqual([{ url: PUBLIC_BASE_URL }]);

  const all = (app as unknown as { '~routes': { method?: string; route?: string }[] })['~routes']
    // The catch-all per path that answers 405 to the other methods is not an operation either.
    .filter((r) => r.method !== undefined && r.method !== '')
    .map((r) => `${r.method} ${r.route!.replace(/:([^/]+)/g, '{$1}')}`)
    .sort();
  // The CORS preflight routes of the client API are not operations of the API.
  const preflights = all.filter((r) => r.startsWith('OPTIONS '));
  expect(preflights).toEqual(['OPTIONS /v1/licenses/activate', 'OPTIONS /v1/licenses/borrow', 'OPTIONS /v1/licenses/deactivate', 'OPTIONS /v1/licenses/validate', 'OPTIONS /v1/products/{id}/revocations']);
  // The one-time link pages answer HTML to a browser; they are not operations of the API either.
  const pages = all.filter((r) => / \/(sign-in|reopen|confirm-owner-email)$/.test(r) || / \/portal\/\{accountId\}\/sign-in$/.test(r));
  expect(pages).toEqual([
    'GET /confirm-owner-email', 'GET /portal/{accountId}/sign-in', 'GET /reopen', 'GET /sign-in',
    'POST /confirm-owner-email', 'POST /portal/{accountId}/sign-in', 'POST /reopen', 'POST /sign-in',
  ]);
  // Nor are the browser apps' pages and files (the dashboard, `/` leading to it, and their icon).
  const web = all.filter((r) => r === 'GET /' || r === 'GET /favicon.ico' || r.startsWith('GET /dashboard/') || /^GET \/portal\/\{accountId\}\/(assets\/\{file\})?$/.test(r));
  expect(web).toEqual([
    'GET /', 'GET /dashboard/', 'GET /dashboard/assets/{file}', 'GET /favicon.ico', 'GET /portal/{accountId}/', 'GET /portal/{accountId}/assets/{file}',
  ]);
  // HEAD is mounted beside each GET of the API (the same handler, no body): not an operation of its own.
  const heads = all.filter((r) => r.startsWith('HEAD '));
  expect(heads.map((r) => r.replace(/^HEAD /, 'GET ')).filter((r) => !all.includes(r))).toEqual([]);
  const registered = all.filter((r) => !r.startsWith('OPTIONS ') && !r.startsWith('HEAD ') && !pages.includes(r) && !web.includes(r));
  expect(heads.length).toBe(registered.filter((r) => r.startsWith('GET ')).length);
  const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
  expect(documented).toEqual(registered);
  expect(registered).toContain('POST /v1/licenses/activate');
  expect(registered).toContain('DELETE /v1/activations/{id}');
  expect(registered.length).toBeGreaterThanOrEqual(45);
});

it('generates request schemas from the validating valibot schemas', async () => {
  const h = await createHarness('in-process');
  const doc = await (await h.fetch('/v1/openapi.json')).json();
  const createPlan = doc.paths['/v1/products/{id}/plans'].post;
  const schema = createPlan.requestBody.content['application/json'].schema;
  expect(schema.required).toEqual(expect.arrayContaining(['code', 'kind']));
  expect(schema.properties.kind.enum).toEqual(['subscription', 'perpetual', 'trial']);
  expect(schema.properties.offlineDays).toMatchObject({ anyOf: expect.any(Array) });
  expect(schema.additionalProperties).toBe(false);
  expect(createPlan.security).toEqual([{ apiKey: [] }, { sessionCookie: [] }]);
  expect(doc.components.securitySchemes.sessionCookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'svc_session' });
  const exportKeys = doc.paths['/v1/products/{id}/keys/export'].post;
  expect(exportKeys['x-owner-only']).toBe(true);
  expect(exportKeys.security).toEqual([{ sessionCookie: [] }]);
  expect(exportKeys.responses['400'].description).toContain('owner_session_required');
  expect(exportKeys.responses['403'].description).toContain('forbidden');
  expect(createPlan['x-owner-only']).toBeUndefined();
  expect(createPlan.responses['409'].description).toContain('conflict');

  const listLicenses = doc.paths['/v1/licenses'].get;
  expect(listLicenses.parameters.map((p: any) => p.name).sort()).toEqual(['cursor', 'email', 'key', 'product', 'q', 'status']);
  const activate = doc.paths['/v1/licenses/activate'].post;
  expect(activate.security).toEqual([]);
  expect(activate.requestBody.content['application/json'].schema.properties.fingerprint.pattern).toBe('^[0-9a-f]{64}$');
  expect(activate.responses['409'].description).toContain('activation_limit');
});

it('answers the same document to a real validation: a body the schema refuses is refused by the route', async () => {
  const h = await createHarness('in-process');
  const doc = await (await h.fetch('/v1/openapi.json')).json();
  const product = doc.paths['/v1/products'].post.requestBody.content['application/json'].schema;
  expect(product.required).toEqual(expect.arrayContaining(['name', 'keyPrefix']));
  for (const field of Object.keys(product.properties)) expect(['name', 'keyPrefix', 'graceDays', 'offlineDays']).toContain(field);
  const refused = await h.api('POST', '/products', { name: 'X' });
  expect(refused.status).toBe(400);
  expect(refused.body.error.message).toContain('keyPrefix');
});
