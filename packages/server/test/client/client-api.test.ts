import { verifyCertificate } from '@svc-licensing/verifier';
import { expect, it } from 'vitest';
import { createPlan, createProduct, fingerprint, licensed } from '../support/fixtures.js';
import { createHarness, describeEverySetup, type Harness } from '../support/harness.js';
import { opensslVerifiesCertificate } from '../support/openssl.js';

async function publicKeys(h: Harness, productId: string): Promise<Record<string, string>> {
  const keys = await h.api('GET', `/products/${productId}/keys`);
  return Object.fromEntries(keys.body.data.map((k: any) => [k.kid, k.publicKey]));
}

describeEverySetup('client API over HTTP', (setup) => {
  it('activates, validates and deactivates; certificates verify with the verifier and with openssl', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h);
    const fp = fingerprint(product.id, 1);
    const activated = await h.client('activate', { product: product.id, key: license.key, fingerprint: fp, name: 'Laptop', platform: 'linux', appVersion: '1.2.0' });
    expect(activated.status).toBe(200);
    expect(activated.body).toEqual({ certificate: expect.stringMatching(/^CRT1\./), activation: expect.stringMatching(/^act_/), revocationListSeq: 0 });
    expect(activated.headers.get('access-control-allow-origin')).toBe('*');

    const keys = await publicKeys(h, product.id);
    const now = Math.floor(h.clock.now() / 1000);
    const verified = await verifyCertificate(activated.body.certificate, { publicKeys: keys, product: product.id, fingerprint: fp, appMajor: 1, now });
    expect(verified.outcome).toBe('valid');
    expect(verified.payload).toMatchObject({ license: license.id, plan: 'pro', licensee: 'Ada Buyer', fingerprint: fp, kid: 'k1' });
    expect(opensslVerifiesCertificate(activated.body.certificate, keys.k1!)).toBe(true);
    const tampered = activated.body.certificate.replace(/\.(.)/, (_: string, c: string) => `.${c === 'e' ? 'f' : 'e'}`);
    expect(opensslVerifiesCertificate(tampered, keys.k1!)).toBe(false);

    const again = await h.client('activate', { product: product.id, key: license.key.toLowerCase().replace(/-/g, '- '), fingerprint: fp });
    expect(again.status).toBe(200);
    expect(again.body.activation).toBe(activated.body.activation);

    const validated = await h.client('validate', { product: product.id, key: license.key, fingerprint: fp, appVersion: '1.3.0' });
    expect(validated.status).toBe(200);
    expect(Object.keys(validated.body)).toEqual(['certificate', 'revocationListSeq']);
    expect((await verifyCertificate(validated.body.certificate, { publicKeys: keys, product: product.id, fingerprint: fp, appMajor: 1, now })).outcome).toBe('valid');
    expect(opensslVerifiesCertificate(validated.body.certificate, keys.k1!)).toBe(true);

    const deactivated = await h.client('deactivate', { product: product.id, key: license.key, fingerprint: fp });
    expect(deactivated).toMatchObject({ status: 200, body: { deactivated: true } });
    const gone = await h.client('validate', { product: product.id, key: license.key, fingerprint: fp });
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('not_activated');
  });

  it('signs with the newly activated key after a rotation, verifiable by openssl', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h);
    await h.api('POST', `/products/${product.id}/keys`);
    await h.api('POST', `/products/${product.id}/keys/k2/activate`);
    const fp = fingerprint(product.id, 2);
    const res = await h.client('activate', { product: product.id, key: license.key, fingerprint: fp });
    const keys = await publicKeys(h, product.id);
    const result = await verifyCertificate(res.body.certificate, { publicKeys: keys, product: product.id, fingerprint: fp, appMajor: 1, now: Math.floor(h.clock.now() / 1000) });
    expect(result.payload?.kid).toBe('k2');
    expect(opensslVerifiesCertificate(res.body.certificate, keys.k2!)).toBe(true);
    expect(opensslVerifiesCertificate(res.body.certificate, keys.k1!)).toBe(false);
  });

  it('answers the spec codes: unknown_product, unknown_key, activation_limit, license_* and license_expired', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h, {}, { maxActivations: 1 });
    const call = (body: object) => h.client('activate', { product: product.id, key: license.key, fingerprint: fingerprint(product.id, 1), ...body });
    const expectError = async (res: Promise<any>, status: number, code: string) => {
      const answer = await res;
      expect(answer.status, code).toBe(status);
      expect(answer.body.error.code).toBe(code);
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    };
    await expectError(call({ product: 'prd_nope' }), 404, 'unknown_product');
    await expectError(call({ key: 'ACME-AAAAA-BBBBB-CCCCC-DDDDD' }), 404, 'unknown_key');
    expect((await call({})).status).toBe(200);
    await expectError(call({ fingerprint: fingerprint(product.id, 2) }), 409, 'activation_limit');

    for (const [action, code] of [['suspend', 'license_suspended'], ['revoke', 'license_revoked']] as const) {
      await h.api('POST', `/licenses/${license.id}/${action}`);
      await expectError(h.client('validate', { product: product.id, key: license.key, fingerprint: fingerprint(product.id, 1) }), 403, code);
      if (action === 'suspend') await h.api('POST', `/licenses/${license.id}/reinstate`);
    }

    const late = await createHarness(setup);
    const fresh = await licensed(late);
    late.clock.advance(40 * 86_400_000);
    const expired = await late.client('activate', { product: fresh.product.id, key: fresh.license.key, fingerprint: fingerprint(fresh.product.id, 1) });
    expect(expired.status).toBe(403);
    expect(expired.body.error.code).toBe('license_expired');
  });

  it('answers 403 license_refunded once a purchase is fully refunded', async () => {
    const h = await createHarness(setup);
    const product = await createProduct(h);
    await createPlan(h, product.id, { code: 'life', kind: 'perpetual' });
    const integration = await h.api('POST', '/integrations', { provider: 'provider_b', product: product.id, webhookSecret: 'whsec', priceMap: { var_1: 'life' } });
    const base = { provider: 'provider_b', occurredAt: '2026-01-15T12:00:00Z' } as const;
    const bought = await h.engine.applyPaymentCommand(integration.body.id, {
      ...base, kind: 'purchase_completed', eventId: 'evt_1', eventType: 'order_created',
      customer: { providerCustomerId: null, email: 'payer@example.com', name: 'Payer' }, orderId: 'ord_1', priceId: 'var_1', quantity: 1,
    });
    const { key } = (await h.api('GET', `/licenses/${bought.licenseId}`)).body;
    const body = { product: product.id, key, fingerprint: fingerprint(product.id, 1) };
    expect((await h.client('activate', body)).status).toBe(200);
    await h.engine.applyPaymentCommand(integration.body.id, {
      ...base, kind: 'refunded', eventId: 'evt_2', eventType: 'order_refunded', subscriptionId: null, orderId: 'ord_1', full: true,
    });
    const refused = await h.client('validate', body);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('license_refunded');
  });

  it('answers 403 account_closed to new activations of a closed account while activated machines keep validating', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h);
    const first = { product: product.id, key: license.key, fingerprint: fingerprint(product.id, 1) };
    expect((await h.client('activate', first)).status).toBe(200);
    await h.engine.closeAccount(h.accountId);
    const refused = await h.client('activate', { ...first, fingerprint: fingerprint(product.id, 2) });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('account_closed');
    expect((await h.client('validate', first)).status).toBe(200);
    expect((await h.api('GET', '/products')).status).toBe(401);
  });

  it('refuses malformed requests with 400 invalid_request: non-JSON content type, bad JSON, bad fingerprint, missing field', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h);
    const good = { product: product.id, key: license.key, fingerprint: fingerprint(product.id, 1) };
    const textPlain = await h.fetch('/v1/licenses/activate', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify(good) });
    expect(textPlain.status).toBe(400);
    expect((await textPlain.json()).error.code).toBe('invalid_request');
    const badJson = await h.fetch('/v1/licenses/activate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"product":' });
    expect(badJson.status).toBe(400);
    expect((await badJson.json()).error.code).toBe('invalid_request');
    const badFp = await h.client('activate', { ...good, fingerprint: 'ABC' });
    expect(badFp.status).toBe(400);
    expect(badFp.body.error.message).toContain('fingerprint');
    const badKey = await h.client('activate', { ...good, key: 'not a license key' });
    expect(badKey.status).toBe(400);
    expect(badKey.body.error.code).toBe('invalid_request');
    const missing = await h.client('validate', { product: product.id, fingerprint: good.fingerprint });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain('key');
    expect((await h.api('GET', `/licenses/${license.id}`)).body.activationCount).toBe(0);
  });

  it('answers JSON with its content type, CORS headers (client API only) and rate-limit headers', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h);
    const activated = await h.client('activate', { product: product.id, key: license.key, fingerprint: fingerprint(product.id, 1) });
    expect(activated.status).toBe(200);
    expect(activated.headers.get('content-type')).toMatch(/^application\/json/);
    expect(activated.headers.get('access-control-allow-origin')).toBe('*');
    expect(activated.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(activated.headers.get(name)).toMatch(/^\d+$/);
    const listed = await h.api('GET', '/products');
    expect(listed.status).toBe(200);
    expect(listed.headers.get('content-type')).toMatch(/^application\/json/);
    expect(listed.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect(listed.headers.get('access-control-allow-origin')).toBeNull();
    const created = await h.api('POST', '/products', { name: 'Second', keyPrefix: 'SEC' });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers the CORS preflight of every client route', async () => {
    const h = await createHarness(setup);
    for (const action of ['activate', 'validate', 'deactivate']) {
      const res = await h.fetch(`/v1/licenses/${action}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');
    }
    const vendor = await h.fetch('/v1/products', { method: 'OPTIONS' });
    expect(vendor.headers.get('access-control-allow-origin')).toBeNull();
  });
});
