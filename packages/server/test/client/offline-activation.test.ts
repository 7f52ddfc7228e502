import { encodeActivationRequest } from '@svc-licensing/cert-format';
import { verifyCertificate } from '@svc-licensing/verifier';
import { expect, it } from 'vitest';
import { fingerprint, licensed } from '../support/fixtures.js';
import { createHarness, describeEverySetup, type Harness } from '../support/harness.js';

const requestFor = (h: Harness, product: string, machine: number, extra: Record<string, string> = {}) =>
  encodeActivationRequest({
    v: 1,
    product,
    fingerprint: fingerprint(product, machine),
    appVersion: '1.4.0',
    createdAt: Math.floor(h.clock.now() / 1000),
    ...extra,
  });

describeEverySetup('offline activation over the vendor API', (setup) => {
  it('activates the machine of a request that carries the key and answers a certificate bound to it', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h);
    const request = requestFor(h, product.id, 1, { key: license.key.toLowerCase(), name: 'Lab PC', platform: 'linux' });
    // Pasted from an e-mail: wrapped lines and blank lines around it.
    const res = await h.api('POST', '/activations/offline', { request: `\n${request.replace(/(.{50})/g, '$1\n')}\n` });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      certificate: expect.stringMatching(/^CRT1\./),
      activation: expect.stringMatching(/^act_/),
      license: license.id,
      product: product.id,
      fingerprint: fingerprint(product.id, 1),
    });
    const keys = await h.api('GET', `/products/${product.id}/keys`);
    const publicKeys = Object.fromEntries(keys.body.data.map((k: any) => [k.kid, k.publicKey]));
    const verified = await verifyCertificate(res.body.certificate, {
      publicKeys, product: product.id, fingerprint: fingerprint(product.id, 1), appMajor: 1, now: Math.floor(h.clock.now() / 1000),
    });
    expect(verified.outcome).toBe('valid');

    const detail = await h.api('GET', `/licenses/${license.id}`);
    expect(detail.body.activations).toEqual([
      expect.objectContaining({ id: res.body.activation, name: 'Lab PC', platform: 'linux', appVersion: '1.4.0' }),
    ]);
    const events = await h.api('GET', `/events?license=${license.id}`);
    expect(events.body.data[0]).toMatchObject({ type: 'activation.created', data: { activation: res.body.activation, source: 'offline' } });

    // The machine can validate online later like any other, and releasing it works like any other.
    const validated = await h.client('validate', { product: product.id, key: license.key, fingerprint: fingerprint(product.id, 1) });
    expect(validated.status).toBe(200);
    expect((await h.api('DELETE', `/activations/${res.body.activation}`)).status).toBe(200);
  });

  it('needs the license when the request has no key, refuses a key of another license, and writes nothing on bad input', async () => {
    const h = await createHarness(setup);
    const { product, plan, license } = await licensed(h);
    const other = await h.api('POST', '/licenses', { plan: plan.id, email: 'zoe@example.com', paidUntil: '2026-03-01T00:00:00Z' });
    const bare = requestFor(h, product.id, 2);

    const noLicense = await h.api('POST', '/activations/offline', { request: bare });
    expect(noLicense.status).toBe(400);
    expect(noLicense.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('choose the license') });

    const mismatch = await h.api('POST', '/activations/offline', { request: requestFor(h, product.id, 2, { key: other.body.key }), license: license.id });
    expect(mismatch.status).toBe(400);

    for (const request of ['CRT1.not.a-request', bare.slice(0, 30), `SVCREQ2.${bare.slice(8)}`]) {
      const bad = await h.api('POST', '/activations/offline', { request, license: license.id });
      expect(bad.status, request).toBe(400);
      expect(bad.body.error.code).toBe('invalid_request');
    }
    expect((await h.api('GET', `/licenses/${license.id}`)).body.activationCount).toBe(0);

    const ok = await h.api('POST', '/activations/offline', { request: bare, license: license.id });
    expect(ok.status).toBe(200);
    expect(ok.body.license).toBe(license.id);
  });

  it('applies the rules of POST /licenses/activate: activation limit, idempotent per machine, refused statuses', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h, {}, { maxActivations: 1 });
    const first = await h.api('POST', '/activations/offline', { request: requestFor(h, product.id, 1), license: license.id });
    expect(first.status).toBe(200);
    const again = await h.api('POST', '/activations/offline', { request: requestFor(h, product.id, 1), license: license.id });
    expect(again.body.activation).toBe(first.body.activation);
    const full = await h.api('POST', '/activations/offline', { request: requestFor(h, product.id, 2), license: license.id });
    expect(full.status).toBe(409);
    expect(full.body.error.code).toBe('activation_limit');
    await h.api('POST', `/licenses/${license.id}/suspend`);
    const suspended = await h.api('POST', '/activations/offline', { request: requestFor(h, product.id, 1), license: license.id });
    expect(suspended.status).toBe(403);
    expect(suspended.body.error.code).toBe('license_suspended');
  });

  it("never reaches another account's license or product", async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h);
    const other = await h.newAccount('unlimited');
    const byId = await h.api('POST', '/activations/offline', { request: requestFor(h, product.id, 1), license: license.id }, { key: other.apiKey });
    expect(byId.status).toBe(404);
    expect(byId.body.error.code).toBe('not_found');
    const byKey = await h.api('POST', '/activations/offline', { request: requestFor(h, product.id, 1, { key: license.key }) }, { key: other.apiKey });
    expect(byKey.status).toBe(404);
    expect(byKey.body.error.code).toBe('unknown_product');
    expect((await h.api('GET', `/licenses/${license.id}`)).body.activationCount).toBe(0);
  });

  it('parallel offline activations of different machines never exceed the activation limit', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h, {}, { maxActivations: 2 });
    const answers = await Promise.all(
      [11, 12, 13, 14, 15].map((machine) => h.api('POST', '/activations/offline', { request: requestFor(h, product.id, machine), license: license.id })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 409, 409, 409]);
    expect(answers.filter((a) => a.status === 409).every((a) => a.body.error.code === 'activation_limit')).toBe(true);
    const detail = await h.api('GET', `/licenses/${license.id}`);
    expect(detail.body.activationCount).toBe(2);
    expect(detail.body.activations).toHaveLength(2);
  });
});
