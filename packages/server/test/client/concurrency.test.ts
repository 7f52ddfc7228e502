import { expect, it } from 'vitest';
import { fingerprint, licensed } from '../support/fixtures.js';
import { createHarness, describeEverySetup } from '../support/harness.js';

describeEverySetup('concurrent activations over HTTP', (setup) => {
  it('lets exactly k of N parallel activations succeed; the rest get 409 activation_limit', async () => {
    const h = await createHarness(setup);
    const k = 3;
    const n = 20;
    const { product, license } = await licensed(h, {}, { maxActivations: k });
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) => h.client('activate', { product: product.id, key: license.key, fingerprint: fingerprint(product.id, i) })),
    );
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 409);
    expect(ok).toHaveLength(k);
    expect(refused).toHaveLength(n - k);
    for (const r of refused) expect(r.body.error.code).toBe('activation_limit');
    const detail = await h.api('GET', `/licenses/${license.id}`);
    expect(detail.body.activationCount).toBe(k);
    expect(detail.body.activations.map((a: any) => a.id).sort()).toEqual(ok.map((a) => a.body.activation).sort());
  });

  it('gives N parallel activations of one machine the same single activation, using one place of the limit', async () => {
    const h = await createHarness(setup);
    const n = 12;
    const { product, license } = await licensed(h, {}, { maxActivations: 2 });
    const fp = fingerprint(product.id, 'same');
    const answers = await Promise.all(Array.from({ length: n }, () => h.client('activate', { product: product.id, key: license.key, fingerprint: fp })));
    expect(answers.map((a) => a.status)).toEqual(Array(n).fill(200));
    const ids = new Set(answers.map((a) => a.body.activation));
    expect(ids.size).toBe(1);
    const detail = await h.api('GET', `/licenses/${license.id}`);
    expect(detail.body.activationCount).toBe(1);
    expect(detail.body.activations.map((a: any) => a.id)).toEqual([...ids]);
    expect((await h.client('activate', { product: product.id, key: license.key, fingerprint: fingerprint(product.id, 'other') })).status).toBe(200);
  });
});
