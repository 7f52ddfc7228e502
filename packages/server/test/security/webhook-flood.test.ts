import { expect, it } from 'vitest';
import { describeEverySetup } from '../support/harness.js';
import { createWorld, type World } from '../support/payment-world.js';

/**
 * Issue 25, should fix: the payment-provider receiver is public, and cost a database read per
 * request for an unknown integration ID and per badly signed delivery. What a flood costs is now
 * bounded (unknown IDs remembered, one read at a time per integration, a failing address's lookups
 * in one line), and a correctly signed delivery is never refused: each test sends one in the flood.
 */

/** Counts the receiver's reads of integration secrets (each a database round trip, given 5 ms here) and the most at once. */
function countReads(w: World): { total: number; most: number } {
  const engine = w.harness.engine as unknown as { getIntegrationSecrets: (id: string) => Promise<unknown> };
  const original = engine.getIntegrationSecrets;
  const counts = { total: 0, most: 0 };
  let now = 0;
  engine.getIntegrationSecrets = async (id: string) => {
    counts.total += 1;
    counts.most = Math.max(counts.most, ++now);
    try {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return await original(id);
    } finally {
      now -= 1;
    }
  };
  return counts;
}

const madeUp = (n: number) => `int_${String(n).padStart(26, '0')}`;

describeEverySetup('webhook receiver under an unauthenticated flood', (setup) => {
  it('a flood to a made-up integration ID costs one read, and answers 404 throughout', async () => {
    const w = await createWorld(setup);
    const reads = countReads(w);
    const answers = await Promise.all(Array.from({ length: 40 }, () => w.deliver('provider_b', 'order_created', { integrationId: madeUp(1) })));
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([404]));
    for (let i = 0; i < 10; i++) expect((await w.deliver('provider_b', 'order_created', { integrationId: madeUp(1) })).status).toBe(404);
    expect(reads.total).toBe(1);
    // The real integration is unaffected.
    expect((await w.deliver('provider_b', 'order_created')).status).toBe(200);
  });

  it('badly signed deliveries at once cost a few reads, and one signed with the secret saved just before is processed among them', async () => {
    const w = await createWorld(setup);
    expect((await w.deliver('provider_a', 'customer.created')).status).toBe(200); // the receiver remembers the secret
    // The vendor saves a new secret (the receiver's remembered one is now out of date), and a flood comes with the good delivery.
    expect((await w.api('PATCH', `/integrations/${w.integrationA}`, { webhookSecret: 'pdl_ntfset_rotated' })).status).toBe(200);
    const reads = countReads(w);
    const bad = Array.from({ length: 60 }, (_, i) => w.deliver('provider_a', 'transaction.completed', { secret: `wrong-${i}` }));
    const good = w.deliver('provider_a', 'transaction.completed', { secret: 'pdl_ntfset_rotated' });
    const answers = await Promise.all(bad);
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([401]));
    const processed = await good;
    expect(processed.status, JSON.stringify(processed.body)).toBe(200);
    expect(processed.body.result).toBe('processed');
    expect(await w.licenses()).toHaveLength(1);
    // One read at a time, each shared by every delivery that arrived before it began (over real
    // sockets arrivals spread out, so fewer share one; in-process, 3 reads served 61 deliveries).
    expect(reads.most).toBe(1);
    expect(reads.total).toBeLessThan(40);
  });

  it("an address that keeps failing has its lookups of new IDs read one at a time, and its correctly signed delivery to a new integration is processed", async () => {
    const w = await createWorld(setup);
    for (let i = 0; i < 30; i++) expect((await w.deliver('provider_b', 'order_created', { integrationId: madeUp(100 + i) })).status).toBe(404);
    // A new integration (never seen by the receiver) of another product, and a flood of new made-up IDs with its delivery in the middle.
    const product = await w.api('POST', '/products', { name: 'Beta Tool', keyPrefix: 'BETA' });
    await w.api('POST', `/products/${product.body.id}/plans`, { code: 'pro', kind: 'subscription', maxActivations: 2 });
    const integration = await w.api('POST', '/integrations', {
      provider: 'provider_b', product: product.body.id, priceMap: { '418830': 'pro' }, webhookSecret: 'ls_beta_secret',
    });
    expect(integration.status, JSON.stringify(integration.body)).toBe(201);
    const reads = countReads(w);
    const flood = Array.from({ length: 40 }, (_, i) => w.deliver('provider_b', 'order_created', { integrationId: madeUp(200 + i) }));
    const good = w.deliver('provider_b', 'order_created', { integrationId: integration.body.id, secret: 'ls_beta_secret' });
    expect(new Set((await Promise.all(flood)).map((a) => a.status))).toEqual(new Set([404]));
    const processed = await good;
    expect(processed.status, JSON.stringify(processed.body)).toBe(200);
    expect(reads.total).toBe(41);
    expect(reads.most).toBe(1);
  });
});
