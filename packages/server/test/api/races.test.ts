import { expect, it } from 'vitest';
import { createProduct } from '../support/fixtures.js';
import { createHarness, describeEverySetup } from '../support/harness.js';

describeEverySetup('parallel vendor calls over HTTP', (setup) => {
  it('creates a plan code once when N calls race for it; the rest get 409 conflict', async () => {
    const h = await createHarness(setup);
    const product = await createProduct(h);
    const n = 8;
    const answers = await Promise.all(Array.from({ length: n }, () => h.api('POST', `/products/${product.id}/plans`, { code: 'pro', kind: 'perpetual' })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array(n - 1).fill(409)]);
    for (const a of answers.filter((x) => x.status === 409)) expect(a.body.error.code).toBe('conflict');
    expect((await h.api('GET', `/products/${product.id}/plans`)).body.data).toHaveLength(1);
  });

  it('starts one pending signing key when N rotations race; the rest get 409 conflict', async () => {
    const h = await createHarness(setup);
    const product = await createProduct(h);
    const n = 8;
    const answers = await Promise.all(Array.from({ length: n }, () => h.api('POST', `/products/${product.id}/keys`)));
    expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array(n - 1).fill(409)]);
    const keys = (await h.api('GET', `/products/${product.id}/keys`)).body.data;
    expect(keys.map((k: any) => `${k.kid}:${k.status}`)).toEqual(['k1:active', 'k2:pending']);
  });

  it('stops at the service plan\'s product limit when N creations race; the rest get 402 plan_limit', async () => {
    const h = await createHarness(setup);
    const free = await h.newAccount('free');
    const as = { key: free.apiKey };
    const limit = (await h.api('GET', '/account/usage', undefined, as)).body.productLimit as number;
    const n = limit + 6;
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) => h.api('POST', '/products', { name: `Racer ${i}`, keyPrefix: `R${i}` }, as)),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(limit);
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused.map((a) => a.status)).toEqual(Array(n - limit).fill(402));
    for (const a of refused) expect(a.body.error.code).toBe('plan_limit');
    expect((await h.api('GET', '/products', undefined, as)).body.data).toHaveLength(limit);
  });
});
