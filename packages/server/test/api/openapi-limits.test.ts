import { encodeActivationRequest } from '@svc-licensing/cert-format';
import { expect, it } from 'vitest';
import { createPlan, createProduct, fingerprint, licensed } from '../support/fixtures.js';
import { createHarness, describeEverySetup, PUBLIC_ORIGIN, type Harness } from '../support/harness.js';

/**
 * Every limit the OpenAPI document states (a string's `maxLength`, an integer's `minimum` and
 * `maximum`, in bodies, array items, price maps and query parameters) is the limit the route
 * enforces: a value at the limit is not refused as invalid input (it may still be `404` for an
 * ID that names nothing), one past it is `400 invalid_request`.
 */

type Schema = Record<string, any>;
interface Limit {
  /** `METHOD /path` and the field, for failure messages. */
  where: string;
  /** A request whose `field` holds `value`. */
  send(value: unknown): Promise<{ status: number; body: any }>;
  inRange: unknown[];
  outOfRange: unknown[];
}

/** A string of exactly `length` characters that passes the schema's format. */
function text(schema: Schema, length: number): string {
  if (schema.format === 'email') return `a@${'b'.repeat(length - 7)}.test`;
  return 'x'.repeat(length);
}

/** Of nested `anyOf` alternatives, the one with a type other than `null` (a constant such as `''` is skipped). */
const concrete = (schema: Schema): Schema =>
  schema.anyOf ? concrete(schema.anyOf.find((s: Schema) => s.anyOf !== undefined || (s.type !== undefined && s.type !== 'null')) ?? {}) : schema;

function limitsOf(schema: Schema): Array<{ inRange: unknown[]; outOfRange: unknown[]; wrap?: (v: unknown) => unknown; part: string }> {
  const s = concrete(schema);
  const found: Array<{ inRange: unknown[]; outOfRange: unknown[]; wrap?: (v: unknown) => unknown; part: string }> = [];
  if (s.type === 'string' && s.maxLength !== undefined) found.push({ part: 'maxLength', inRange: [text(s, s.maxLength)], outOfRange: [text(s, s.maxLength + 1)] });
  if (s.type === 'integer' && (s.minimum !== undefined || s.maximum !== undefined)) {
    found.push({ part: 'range', inRange: [s.minimum, s.maximum].filter((n) => n !== undefined), outOfRange: [s.minimum - 1, s.maximum + 1].filter((n) => !Number.isNaN(n)) });
  }
  if (s.type === 'array' && s.items) {
    for (const item of limitsOf(s.items)) found.push({ ...item, part: `items ${item.part}`, wrap: (v) => [v] });
  }
  return found;
}

/** A fresh, valid request per route (its unique fields differ on every call) and where its fields go. */
async function routes(h: Harness) {
  const { product, license } = await licensed(h);
  const code64 = await createPlan(h, product.id, { code: 'c'.repeat(64), kind: 'perpetual' });
  // Lease fields are floating plans' only, and a borrow needs a floating license that may borrow a year.
  const team = await createPlan(h, product.id, { code: 'team', kind: 'perpetual', seatMode: 'floating', maxBorrowDays: 365 });
  const teamLicense = (await h.api('POST', '/licenses', { plan: team.id, email: 'buyer@example.com' })).body;
  const integration = (await h.api('POST', '/integrations', { provider: 'provider_a', product: product.id })).body;
  const endpoint = (await h.api('POST', '/webhook-endpoints', { url: 'https://hooks.example.com/limits' })).body;
  let n = 0;
  const paddedKey = license.key.padEnd(100, ' ');
  const client = { product: product.id, key: license.key, fingerprint: fingerprint(product.id, 1) };
  const body: Record<string, () => Promise<{ path: string; body: Record<string, unknown> }>> = {
    'post /v1/products': async () => ({ path: '/v1/products', body: { name: 'P', keyPrefix: `L${n++}` } }),
    'patch /v1/products/{id}': async () => ({ path: `/v1/products/${product.id}`, body: {} }),
    'post /v1/products/{id}/plans': async () => ({ path: `/v1/products/${product.id}/plans`, body: { code: `p${n++}`, kind: 'perpetual', seatMode: 'floating' } }),
    'patch /v1/plans/{id}': async () => ({ path: `/v1/plans/${team.id}`, body: {} }),
    'post /v1/licenses': async () => ({ path: '/v1/licenses', body: { plan: code64.code, product: product.id, email: 'limits@buyers.test' } }),
    'patch /v1/licenses/{id}': async () => ({ path: `/v1/licenses/${license.id}`, body: {} }),
    'post /v1/integrations': async () => {
      // A price map names plans of the integration's product: this one has the 64-character code the map limits use.
      const fresh = await createProduct(h, { keyPrefix: `I${n++}` });
      await createPlan(h, fresh.id, { code: code64.code, kind: 'perpetual' });
      return { path: '/v1/integrations', body: { provider: 'provider_a', product: fresh.id } };
    },
    'patch /v1/integrations/{id}': async () => ({ path: `/v1/integrations/${integration.id}`, body: {} }),
    // Each in-range create registers an endpoint: two limited fields stay well under the 10 an account may have.
    'post /v1/webhook-endpoints': async () => ({ path: '/v1/webhook-endpoints', body: { url: 'https://hooks.example.com/svc' } }),
    'patch /v1/webhook-endpoints/{id}': async () => ({ path: `/v1/webhook-endpoints/${endpoint.id}`, body: {} }),
    'post /v1/api-keys': async () => ({ path: '/v1/api-keys', body: { name: 'k' } }),
    'patch /v1/account': async () => ({ path: '/v1/account', body: {} }),
    'post /v1/account/owner-email': async () => ({ path: '/v1/account/owner-email', body: { email: 'new-owner@vendor.test' } }),
    'post /v1/session/link': async () => ({ path: '/v1/session/link', body: { email: 'owner@vendor.test' } }),
    'post /v1/members': async () => ({ path: '/v1/members', body: { email: `member-${n++}@vendor.test` } }),
    'post /v1/account/sender-domain': async () => ({ path: '/v1/account/sender-domain', body: { domain: 'mail.example.test' } }),
    'post /v1/activations/offline': async () => ({ path: '/v1/activations/offline', body: { request: offlineRequest, license: license.id } }),
    'post /v1/portal/{accountId}/session/link': async () => ({ path: `/v1/portal/${h.accountId}/session/link`, body: { email: 'buyer@example.com' } }),
    'post /v1/portal/{accountId}/activations/offline': async () => ({ path: `/v1/portal/${h.accountId}/activations/offline`, body: { request: offlineRequest, license: license.id } }),
    'post /v1/licenses/activate': async () => ({ path: '/v1/licenses/activate', body: { ...client } }),
    'post /v1/licenses/validate': async () => ({ path: '/v1/licenses/validate', body: { ...client } }),
    'post /v1/licenses/deactivate': async () => ({ path: '/v1/licenses/deactivate', body: { ...client } }),
    'post /v1/licenses/borrow': async () => ({ path: '/v1/licenses/borrow', body: { product: product.id, key: teamLicense.key, fingerprint: fingerprint(product.id, 1), days: 1 } }),
  };
  /** Values that must be real to be accepted at the limit (a key padded with spaces to its length limit still names the license). */
  const offlineRequest = encodeActivationRequest({ v: 1, product: product.id, fingerprint: fingerprint(product.id, 2), appVersion: '1.0.0', createdAt: 1_767_225_600 });
  const special: Record<string, unknown> = {
    // Whitespace in a pasted activation request is ignored, so a real one padded with line breaks fills the limit.
    'post /v1/activations/offline request': offlineRequest.padEnd(8192, '\n'),
    // A domain name of 253 characters: four labels of at most 63.
    'post /v1/account/sender-domain domain': `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`,
    // An endpoint URL at its limit must still be an https URL (a public host name is checked without DNS).
    'post /v1/webhook-endpoints url': `https://hooks.example.com/${'p'.repeat(2048 - 'https://hooks.example.com/'.length)}`,
    'patch /v1/webhook-endpoints/{id} url': `https://hooks.example.com/${'p'.repeat(2048 - 'https://hooks.example.com/'.length)}`,
    'post /v1/portal/{accountId}/activations/offline request': offlineRequest.padEnd(8192, '\n'), 'post /v1/licenses/activate key': paddedKey, 'post /v1/licenses/validate key': paddedKey, 'post /v1/licenses/deactivate key': paddedKey,
    'post /v1/licenses/borrow key': teamLicense.key.padEnd(100, ' ') };
  const query: Record<string, string> = {
    'get /v1/products/{id}/keys': `/v1/products/${product.id}/keys`,
    'get /v1/products/{id}/plans': `/v1/products/${product.id}/plans`,
  };
  return { body, special, query, planCode64: code64 };
}

describeEverySetup('OpenAPI limits are the enforced limits', (setup) => {
  it('accepts every documented maxLength and range at its limit and refuses one past it', async () => {
    const h = await createHarness(setup, { limits: { clientPerIp: 1_000_000, clientPerKeyAndIp: 1_000_000 } });
    const doc = await (await h.fetch('/v1/openapi.json')).json();
    const { body, special, query } = await routes(h);
    const owner = await h.signIn();
    // The portal's routes are the signed-in customer's (the license's buyer).
    const link = await h.engine.requestPortalLink(h.accountId, 'buyer@example.com');
    const customer = await h.engine.usePortalLink(h.accountId, link!.token);
    if (!customer.ok) throw new Error('the customer could not sign in');
    const customerHeaders = { cookie: `svc_portal_${h.accountId}=${customer.session.token}`, origin: PUBLIC_ORIGIN };
    const call = async (method: string, path: string, json?: unknown) => {
      const send = async (auth: Record<string, string>) => {
        const res = await h.fetch(path, {
          method: method.toUpperCase(),
          headers: { ...auth, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(json === undefined ? {} : { body: JSON.stringify(json) }),
        });
        const textBody = await res.text();
        return { status: res.status, body: textBody === '' ? null : JSON.parse(textBody) };
      };
      if (path.startsWith('/v1/portal/')) return send(customerHeaders);
      const answer = await send({ authorization: `Bearer ${h.apiKey}` });
      // An owner-only route refuses an API key first: ask again as the signed-in owner.
      return answer.body?.error?.code === 'owner_session_required' ? send(owner.headers) : answer;
    };

    const limits: Limit[] = [];
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        const route = `${method} ${path}`;
        const schema = op.requestBody?.content?.['application/json']?.schema;
        if (schema) {
          const base = body[route];
          expect(base, `no valid request for ${route}: add one to this test`).toBeDefined();
          for (const [field, prop] of Object.entries(schema.properties as Record<string, Schema>)) {
            for (const limit of limitsOf(prop)) {
              const value = (v: unknown) => special[`${route} ${field}`] ?? (limit.wrap ? limit.wrap(v) : v);
              limits.push({
                where: `${route} ${field} ${limit.part}`,
                send: async (v) => {
                  const req = await base!();
                  return call(method, req.path, { ...req.body, [field]: limit.inRange.includes(v) ? value(v) : limit.wrap ? limit.wrap(v) : v });
                },
                inRange: limit.inRange,
                outOfRange: limit.outOfRange,
              });
            }
            // A price map: its keys (provider price IDs) and values (plan codes).
            if (prop.type === 'object' && prop.propertyNames?.maxLength && prop.additionalProperties?.maxLength) {
              const keyMax = prop.propertyNames.maxLength as number;
              const codeMax = prop.additionalProperties.maxLength as number;
              expect(codeMax).toBe(64);
              limits.push({
                where: `${route} ${field} keys maxLength`,
                send: async (v) => {
                  const req = await base!();
                  return call(method, req.path, { ...req.body, [field]: { [v as string]: 'c'.repeat(codeMax) } });
                },
                inRange: ['k'.repeat(keyMax)],
                outOfRange: ['k'.repeat(keyMax + 1)],
              });
              limits.push({
                where: `${route} ${field} values maxLength`,
                send: async (v) => {
                  const req = await base!();
                  return call(method, req.path, { ...req.body, [field]: { price_1: v } });
                },
                inRange: ['c'.repeat(codeMax)],
                outOfRange: ['c'.repeat(codeMax + 1)],
              });
            }
          }
        }
        for (const param of (op.parameters ?? []).filter((p: any) => p.in === 'query')) {
          const url = query[route] ?? path;
          for (const limit of limitsOf(param.schema)) {
            // A cursor is opaque: only one the list handed out is accepted, so only the refusal past the limit is compared.
            const inRange = param.name === 'cursor' ? [] : limit.inRange;
            limits.push({
              where: `${route} ?${param.name} ${limit.part}`,
              send: (v) => call('get', `${url}?${param.name}=${encodeURIComponent(String(v))}`),
              inRange,
              outOfRange: limit.outOfRange,
            });
          }
        }
      }
    }

    const mismatches: string[] = [];
    for (const limit of limits) {
      for (const v of limit.inRange) {
        const res = await limit.send(v);
        if (res.status === 400) mismatches.push(`${limit.where}: ${String(v).slice(0, 20)}… (${String(v).length}) refused: ${res.body?.error?.message}`);
        else expect(res.status, limit.where).toBeLessThan(500);
      }
      for (const v of limit.outOfRange) {
        const res = await limit.send(v);
        if (res.status !== 400 || res.body?.error?.code !== 'invalid_request') mismatches.push(`${limit.where}: ${String(v).slice(0, 20)}… (${String(v).length}) answered ${res.status}`);
      }
    }
    expect(mismatches).toEqual([]);
    // Every limited field of the document was compared (a document without limits would pass vacuously).
    expect(limits.length).toBeGreaterThanOrEqual(50);
  });
});
