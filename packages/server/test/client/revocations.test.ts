import { verifyCertificate, verifyRevocationList } from '@svc-licensing/verifier';
import { expect, it } from 'vitest';
import { createProduct, fingerprint, licensed } from '../support/fixtures.js';
import { createHarness, describeEverySetup, type Harness } from '../support/harness.js';

// Issue 29, the server half of RVL1 (docs/rvl1.md): GET /v1/products/{id}/revocations and the
// `revocationListSeq` of the client API's answers, on both stores, in-process and over a socket.

async function publicKeys(h: Harness, productId: string): Promise<Record<string, string>> {
  const keys = await h.api('GET', `/products/${productId}/keys`);
  return Object.fromEntries(keys.body.data.map((k: any) => [k.kid, k.publicKey]));
}

const PAID_UNTIL = '2027-01-01T00:00:00Z';
const listPath = (productId: string) => `/v1/products/${encodeURIComponent(productId)}/revocations`;

/** The route's current list, fetched without credentials, and verified as an application would. */
async function fetchList(h: Harness, productId: string) {
  const res = await h.fetch(listPath(productId));
  expect(res.status).toBe(200);
  const text = await res.text();
  // The body is the list and a newline (a file of one line); the SDK trims it, as here.
  const checked = await verifyRevocationList(text.trimEnd(), { publicKeys: await publicKeys(h, productId), product: productId });
  if (checked.outcome !== 'valid') throw new Error(`the served list is ${checked.outcome}`);
  return { res, text, list: checked.list };
}

describeEverySetup('revocation lists over HTTP', (setup) => {
  it('serves a valid empty list without credentials, with an ETag a CDN revalidates (304), open CORS, and 404 for an unknown product', async () => {
    const h = await createHarness(setup);
    const product = await createProduct(h);
    const { res, text, list } = await fetchList(h, product.id);
    expect([list.seq, list.licenseCount, list.activationCount, list.product]).toEqual([1, 0, 0, product.id]);
    expect(text).toMatch(/^RVL1\.[\w-]+\.[\w-]+\n$/);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('etag')).toBe('"rvl1-1"');
    expect(res.headers.get('cache-control')).toBe('public, no-cache');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toMatch(/\bETag\b/);

    const again = await h.fetch(listPath(product.id), { headers: { 'if-none-match': '"rvl1-1"' } });
    expect([again.status, await again.text(), again.headers.get('etag')]).toEqual([304, '', '"rvl1-1"']);
    const stale = await h.fetch(listPath(product.id), { headers: { 'if-none-match': '"rvl1-0"' } });
    expect([stale.status, await stale.text()]).toEqual([200, text]);
    // RFC 9110 13.1.2: a list of ETags (a cache holding several), a weak one (compared weakly), or `*`.
    for (const held of ['"rvl1-0", "rvl1-1"', '"rvl1-0","rvl1-1" ', 'W/"rvl1-1"', '*', ' * ']) {
      const answer = await h.fetch(listPath(product.id), { headers: { 'if-none-match': held } });
      expect([answer.status, await answer.text(), answer.headers.get('etag')], held).toEqual([304, '', '"rvl1-1"']);
    }
    for (const held of ['"rvl1-0", "rvl1-2"', '"rvl1-1, rvl1-2"', 'rvl1-1', '"rvl1-10"']) {
      const answer = await h.fetch(listPath(product.id), { headers: { 'if-none-match': held } });
      expect([answer.status, await answer.text()], held).toEqual([200, text]);
    }
    const head = await h.fetch(listPath(product.id), { method: 'HEAD' });
    expect([head.status, head.headers.get('etag')]).toEqual([200, '"rvl1-1"']);
    const preflight = await h.fetch(listPath(product.id), { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('GET');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('If-None-Match');

    const unknown = await h.fetch(listPath('prd_nope'), { headers: { 'if-none-match': '*' } });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('access-control-allow-origin')).toBe('*');
    expect(await unknown.json()).toEqual({ error: { code: 'unknown_product', message: expect.any(String) } });
  });

  it('a revoked license\'s machine, offline with a fresh certificate: valid before the list, revoked after; validate announces the seq', async () => {
    const h = await createHarness(setup);
    const { product, plan, license } = await licensed(h);
    const other = await h.api('POST', '/licenses', { plan: plan.id, email: 'other@example.com', paidUntil: PAID_UNTIL });
    const fp = fingerprint(product.id, 1);
    await h.client('activate', { product: product.id, key: other.body.key, fingerprint: fp });
    const activated = await h.client('activate', { product: product.id, key: license.key, fingerprint: fp });
    expect(activated.body.revocationListSeq).toBe(0);
    h.clock.advance(60_000);
    const fresh = (await h.client('validate', { product: product.id, key: license.key, fingerprint: fp })).body.certificate as string;
    expect((await h.api('POST', `/licenses/${license.id}/revoke`)).status).toBe(200);

    const keys = await publicKeys(h, product.id);
    const verify = async (revocations: unknown) =>
      (await verifyCertificate(fresh, { publicKeys: keys, product: product.id, fingerprint: fp, appMajor: 1, now: Math.floor(h.clock.now() / 1000), revocations: revocations as never })).outcome;
    expect(await verify(null)).toBe('valid');
    const { list, res } = await fetchList(h, product.id);
    expect([list.seq, list.licenseCount, res.headers.get('etag')]).toEqual([1, 1, '"rvl1-1"']);
    expect(await verify(list)).toBe('revoked');
    const validated = await h.client('validate', { product: product.id, key: other.body.key, fingerprint: fp });
    expect([validated.status, validated.body.revocationListSeq]).toEqual([200, 1]);
  });

  it('a machine freed from the dashboard (owner session): its older certificate reads revoked with the list, a new one after reactivation valid', async () => {
    const h = await createHarness(setup);
    const owner = await h.signIn();
    const { product, license } = await licensed(h);
    const fp = fingerprint(product.id, 2);
    const activated = await h.client('activate', { product: product.id, key: license.key, fingerprint: fp });
    const before = await fetchList(h, product.id);
    expect(before.list.seq).toBe(1);
    const freed = await h.api('DELETE', `/activations/${activated.body.activation}`, undefined, { session: owner });
    expect(freed.status).toBe(200);
    const after = await fetchList(h, product.id);
    expect([after.list.seq, after.list.activationCount]).toEqual([2, 1]);
    const keys = await publicKeys(h, product.id);
    const now = Math.floor(h.clock.now() / 1000);
    const outcome = async (certificate: string, revocations: unknown) =>
      (await verifyCertificate(certificate, { publicKeys: keys, product: product.id, fingerprint: fp, appMajor: 1, now, revocations: revocations as never })).outcome;
    expect(await outcome(activated.body.certificate, before.list)).toBe('valid');
    expect(await outcome(activated.body.certificate, after.list)).toBe('revoked');
    h.clock.advance(1_000);
    const again = await h.client('activate', { product: product.id, key: license.key, fingerprint: fp });
    expect(again.body.revocationListSeq).toBe(2);
    expect(await outcome(again.body.certificate, after.list)).toBe('valid');
  });

  it('revokes racing on one product (parallel requests) each take their own seq: none reused, none lost', async () => {
    const h = await createHarness(setup);
    const { product, plan } = await licensed(h);
    const made = await Promise.all(Array.from({ length: 8 }, (_, i) => h.api('POST', '/licenses', { plan: plan.id, email: `racer${i}@example.com`, paidUntil: PAID_UNTIL })));
    await fetchList(h, product.id); // seq 1: the empty list
    const revokes = await Promise.all(made.map((m) => h.api('POST', `/licenses/${m.body.id}/revoke`)));
    expect(revokes.map((r) => r.status), JSON.stringify(revokes[0]!.body)).toEqual(made.map(() => 200));
    const { list } = await fetchList(h, product.id);
    expect([list.seq, list.licenseCount]).toEqual([9, 8]);
  });

  it('32 revokes and 8 machines freed at once on one product, with no deadlock retries: every one succeeds, each with its seq', async () => {
    // Retries off (MySQL): a unit that deadlocks answers 500 here instead of being rerun, so the
    // product lock must come before any write whose foreign-key check holds the product row.
    const h = await createHarness(setup, {}, { store: { mysql: { poolSize: 16, maxRetries: 0 } } });
    const { product, plan, license } = await licensed(h, {}, { maxActivations: 8 });
    const made = await Promise.all(Array.from({ length: 32 }, (_, i) => h.api('POST', '/licenses', { plan: plan.id, email: `racer${i}@example.com`, paidUntil: PAID_UNTIL })));
    const machines = Array.from({ length: 8 }, (_, i) => fingerprint(product.id, 100 + i));
    for (const fp of machines) expect((await h.client('activate', { product: product.id, key: license.key, fingerprint: fp })).status).toBe(200);
    await fetchList(h, product.id); // seq 1: the empty list
    const answers = await Promise.all([
      ...made.map((m) => h.api('POST', `/licenses/${m.body.id}/revoke`)),
      ...machines.map((fp) => h.client('deactivate', { product: product.id, key: license.key, fingerprint: fp })),
    ]);
    expect(answers.filter((a) => a.status !== 200).map((a) => [a.status, a.body]), 'every change succeeds').toEqual([]);
    const { list } = await fetchList(h, product.id);
    expect([list.seq, list.licenseCount, list.activationCount]).toEqual([41, 32, 8]);
  });

  it('revokes racing a key rotation and edits of their product, with no deadlock retries: every one succeeds, the list has every seq and the new key', async () => {
    // The rotation and the edits read the product locked (on MySQL its list position row too) and
    // write it; the revokes move the position last. Retries off: a deadlock would answer 500.
    const h = await createHarness(setup, {}, { store: { mysql: { poolSize: 16, maxRetries: 0 } } });
    const { product, plan } = await licensed(h);
    const made = await Promise.all(Array.from({ length: 16 }, (_, i) => h.api('POST', '/licenses', { plan: plan.id, email: `rotating${i}@example.com`, paidUntil: PAID_UNTIL })));
    await fetchList(h, product.id); // seq 1: the empty list
    expect((await h.api('POST', `/products/${product.id}/keys`)).status).toBe(201);
    const answers = await Promise.all([
      ...made.map((m) => h.api('POST', `/licenses/${m.body.id}/revoke`)),
      h.api('POST', `/products/${product.id}/keys/k2/activate`),
      ...[1, 2, 3].map((n) => h.api('PATCH', `/products/${product.id}`, { name: `Renamed ${n}` })),
    ]);
    expect(answers.filter((a) => a.status !== 200).map((a) => [a.status, a.body]), 'every change succeeds').toEqual([]);
    const { list } = await fetchList(h, product.id);
    // The empty list, 16 entries, and the rotation's re-signing (the list had a seq): 18; the edits move nothing.
    expect([list.seq, list.licenseCount, list.kid]).toEqual([18, 16, 'k2']);
    expect((await h.api('GET', `/products/${product.id}`)).body.name).toMatch(/^Renamed [123]$/);
  });
});
