import { expect, it } from 'vitest';
import { createPlan, createProduct } from '../support/fixtures.js';
import { createHarness, describeEverySetup, type Answer, type Harness } from '../support/harness.js';

/** Every item of a paged list, following `nextCursor` to the last page. */
async function everyPage(h: Harness, path: string): Promise<{ pages: number[]; ids: string[] }> {
  const pages: number[] = [];
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res: Answer = await h.api('GET', cursor === null ? path : `${path}${sep}cursor=${encodeURIComponent(cursor)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    pages.push(res.body.data.length);
    ids.push(...res.body.data.map((item: { id: string }) => item.id));
    cursor = res.body.nextCursor;
  } while (cursor !== null && pages.length < 10);
  return { pages, ids };
}

describeEverySetup('paging filtered lists over HTTP', (setup) => {
  it('pages licenses, customers and events newest first, with and without filters, each item exactly once', async () => {
    const h = await createHarness(setup);
    const product = await createProduct(h);
    const plan = await createPlan(h, product.id, { kind: 'perpetual' });
    const created: string[] = [];
    // Created in the same millisecond (the test clock stands still), so order rests on the IDs alone.
    for (let i = 0; i < 53; i++) {
      const email = i % 2 === 0 ? `even-${i}@buyers.test` : `odd-${i}@buyers.test`;
      const res: Answer = await h.api('POST', '/licenses', { plan: plan.id, email, name: `Buyer ${i}` });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      created.push(res.body.id);
    }
    const newestFirst = [...created].reverse();

    const all = await everyPage(h, '/licenses');
    expect(all.pages).toEqual([50, 3]);
    expect(all.ids).toEqual(newestFirst);
    const byProduct = await everyPage(h, `/licenses?product=${product.id}&status=perpetual`);
    expect(byProduct.ids).toEqual(newestFirst);
    const even = await everyPage(h, '/licenses?q=EVEN-');
    expect(even.pages).toEqual([27]);
    expect(even.ids).toEqual(newestFirst.filter((_, i) => (52 - i) % 2 === 0));
    expect((await everyPage(h, '/licenses?email=odd-51@buyers.test')).ids).toEqual([created[51]]);

    const customers = await everyPage(h, '/customers');
    expect(customers.pages).toEqual([50, 3]);
    expect(new Set(customers.ids).size).toBe(53);
    const oddCustomers = await h.api('GET', '/customers?q=odd-');
    expect(oddCustomers.body.data).toHaveLength(26);
    expect(oddCustomers.body.data.map((c: any) => c.email)).toEqual(
      Array.from({ length: 26 }, (_, i) => `odd-${51 - 2 * i}@buyers.test`),
    );

    const events = await everyPage(h, '/events');
    expect(events.ids.length).toBeGreaterThanOrEqual(53);
    expect(new Set(events.ids).size).toBe(events.ids.length);
    const ofOne = await h.api('GET', `/events?license=${created[7]}`);
    expect(ofOne.body.data.map((e: any) => e.type)).toEqual(['license.created']);
  });
});
