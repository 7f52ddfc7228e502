import { describe, expect, it } from 'vitest';
import { portalRoutes } from '../../src/routes/portal.js';
import { vendorRoutes } from '../../src/routes/index.js';
import type { RouteDef } from '../../src/http/route.js';
import { createPortalHarness, portalCall, signInCustomer, type Customer, type PortalHarness } from '../support/portal.js';
import { PUBLIC_ORIGIN, type SignedIn } from '../support/harness.js';
import { STORE_KINDS } from '../support/stores.js';

// Issue 25, "should fix": every answer carrying a secret (a license key, an API key, private
// signing keys, the account export, a one-time link's token or the session it opens) says
// `Cache-Control: no-store`, so no browser disk cache or proxy keeps it; and `HEAD` is answered
// wherever a 405's `Allow` lists it. Over a real socket, on both stores.

const BUYER = 'buyer@example.com';
/** A route's path with made-up IDs (each answers whatever it answers: 404, 400...). */
const concrete = (path: string, accountId: string) => path.replace('{accountId}', accountId).replace(/\{[^}]+\}/g, 'x_1');
const label = (route: Pick<RouteDef, 'method' | 'path'>) => `${route.method} ${route.path}`;

interface World {
  h: PortalHarness;
  owner: SignedIn;
  customer: Customer;
  productId: string;
  licenseId: string;
  key: string;
}

async function world(store: (typeof STORE_KINDS)[number]): Promise<World> {
  const h = await createPortalHarness({ mode: 'node-server', store });
  const owner = await h.signIn();
  const product = await h.api('POST', '/products', { name: 'Editor', keyPrefix: 'ED-' });
  const plan = await h.api('POST', `/products/${product.body.id}/plans`, { code: 'pro', name: 'Pro', kind: 'perpetual' });
  const license = await h.api('POST', '/licenses', { plan: plan.body.id, email: BUYER });
  expect(license.status).toBe(201);
  const customer = await signInCustomer(h, h.accountId, BUYER);
  return { h, owner, customer, productId: product.body.id, licenseId: license.body.id, key: license.body.key };
}

const expectNoStore = (headers: Headers, what: string) => expect(headers.get('cache-control'), what).toBe('no-store');

describe.each(STORE_KINDS)('answers that carry a secret (node-server, %s)', (store) => {
  it('the vendor API: license creation and detail (the key), API key creation, signing key export, account export', async () => {
    const { h, owner, productId, key } = await world(store);
    const plan = (await h.api('GET', `/products/${productId}/plans`)).body.data[0].id;

    const created = await h.api('POST', '/licenses', { plan, email: 'second@example.com' });
    expect(created.body.key).toMatch(/^ED-/);
    expectNoStore(created.headers, 'POST /v1/licenses');
    const detail = await h.api('GET', `/licenses/${created.body.id}`);
    expect(detail.body.key).toBe(created.body.key);
    expectNoStore(detail.headers, 'GET /v1/licenses/{id}');
    // The dashboard reads the same answers with its session cookie.
    const bySession = await h.api('GET', `/licenses/${created.body.id}`, undefined, { session: owner });
    expect(bySession.body.key).toBe(created.body.key);
    expectNoStore(bySession.headers, 'GET /v1/licenses/{id} (session)');

    const apiKey = await h.api('POST', '/api-keys', { name: 'CI' });
    expect(apiKey.body.key).toMatch(/^svc_sk_/);
    expectNoStore(apiKey.headers, 'POST /v1/api-keys');

    const signingKeys = await h.api('POST', `/products/${productId}/keys/export`, undefined, { session: owner });
    expect(signingKeys.body.keys[0].privateKey).toEqual(expect.any(String));
    expectNoStore(signingKeys.headers, 'POST /v1/products/{id}/keys/export');

    const exported = await h.fetch('/v1/account/export', { method: 'POST', headers: owner.headers });
    expect(await exported.text()).toContain(key);
    expectNoStore(exported.headers, 'POST /v1/account/export');
  });

  it('the portal: the revealed key, and the signed-in customer\'s licenses', async () => {
    const { h, customer, licenseId, key } = await world(store);
    const revealed = await portalCall(h, customer, 'POST', `/licenses/${licenseId}/key`);
    expect(revealed.body.key).toBe(key);
    expectNoStore(revealed.headers, 'POST /v1/portal/{accountId}/licenses/{id}/key');
    const licenses = await portalCall(h, customer, 'GET', '/licenses');
    expect(licenses.status).toBe(200);
    expectNoStore(licenses.headers, 'GET /v1/portal/{accountId}/licenses');
  });

  it('the one-time link pages (their token in the form) and the answers that set a session cookie', async () => {
    const { h } = await world(store);
    const post = (path: string) => h.fetch(path, { method: 'POST', headers: { origin: PUBLIC_ORIGIN }, redirect: 'manual' });

    const signIn = await h.engine.issueSignInLink(h.accountId);
    const signInPath = `/sign-in?token=${encodeURIComponent(signIn.token)}`;
    const signInPage = await h.fetch(signInPath);
    expect(await signInPage.text()).toContain(signIn.token);
    expectNoStore(signInPage.headers, 'GET /sign-in');
    const signedIn = await post(signInPath);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('set-cookie')).toMatch(/^svc_session=/);
    expectNoStore(signedIn.headers, 'POST /sign-in');

    const { reopenLink } = await h.engine.closeAccount(h.accountId);
    const reopenPath = `/reopen?token=${encodeURIComponent(reopenLink!.token)}`;
    const reopenPage = await h.fetch(reopenPath);
    expect(await reopenPage.text()).toContain(reopenLink!.token);
    expectNoStore(reopenPage.headers, 'GET /reopen');
    const reopened = await post(reopenPath);
    expect(reopened.status).toBe(303);
    expect(reopened.headers.get('set-cookie')).toMatch(/^svc_session=/);
    expectNoStore(reopened.headers, 'POST /reopen');

    const portalLink = await h.engine.requestPortalLink(h.accountId, BUYER);
    const portalPath = `/portal/${h.accountId}/sign-in?token=${encodeURIComponent(portalLink!.token)}`;
    const portalPage = await h.fetch(portalPath);
    expect(await portalPage.text()).toContain(portalLink!.token);
    expectNoStore(portalPage.headers, 'GET /portal/{accountId}/sign-in');
    const customer = await post(portalPath);
    expect(customer.status).toBe(303);
    expect(customer.headers.get('set-cookie')).toMatch(/^svc_portal_/);
    expectNoStore(customer.headers, 'POST /portal/{accountId}/sign-in');
  });

  it('the route table: every vendor API route and every portal route answers no-store, whatever its outcome', async () => {
    const { h, customer } = await world(store);
    expect(vendorRoutes.length).toBeGreaterThan(40);
    for (const route of vendorRoutes) {
      if (route.api !== 'vendor') continue;
      const res = await h.fetch(concrete(route.path, h.accountId), {
        method: route.method,
        headers: { authorization: `Bearer ${h.apiKey}`, ...(route.body ? { 'content-type': 'application/json' } : {}) },
        ...(route.body ? { body: '{}' } : {}),
      });
      await res.arrayBuffer();
      expectNoStore(res.headers, `${label(route)} (${res.status})`);
    }
    expect(portalRoutes.length).toBeGreaterThan(5);
    for (const route of portalRoutes) {
      const res = await h.fetch(concrete(route.path, h.accountId), {
        method: route.method,
        headers: { ...customer.headers, ...(route.body ? { 'content-type': 'application/json' } : {}) },
        ...(route.body ? { body: '{}' } : {}),
      });
      await res.arrayBuffer();
      expectNoStore(res.headers, `${label(route)} (${res.status})`);
    }
  });
});

describe.each(STORE_KINDS)('HEAD wherever Allow lists it (node-server, %s)', (store) => {
  it('every path of the route table whose Allow lists HEAD answers HEAD as it answers GET, without a body', async () => {
    const { h, customer } = await world(store);
    const paths = Object.keys((await (await h.fetch('/v1/openapi.json')).json()).paths as Record<string, unknown>);
    expect(paths.length).toBeGreaterThan(40);
    let checked = 0;
    for (const path of paths) {
      const url = concrete(path, h.accountId);
      // Whatever credential the path takes: the API key for the vendor API, the cookie for the portal.
      const headers = path.startsWith('/v1/portal/') ? customer.headers : { authorization: `Bearer ${h.apiKey}` };
      const refused = await h.fetch(url, { method: 'PUT', headers });
      await refused.arrayBuffer();
      expect(refused.status, `PUT ${path}`).toBe(405);
      const allow = (refused.headers.get('allow') ?? '').split(', ');
      if (!allow.includes('HEAD')) {
        expect(allow, path).not.toContain('GET');
        continue;
      }
      const get = await h.fetch(url, { headers });
      await get.arrayBuffer();
      const head = await h.fetch(url, { method: 'HEAD', headers });
      expect(await head.text(), `HEAD ${path}`).toBe('');
      expect(head.status, `HEAD ${path} (GET answered ${get.status})`).toBe(get.status);
      expect(head.headers.get('content-type'), `HEAD ${path}`).toBe(get.headers.get('content-type'));
      expect(head.headers.get('cache-control'), `HEAD ${path}`).toBe(get.headers.get('cache-control'));
      checked++;
    }
    expect(checked).toBeGreaterThan(20);
  });
});
