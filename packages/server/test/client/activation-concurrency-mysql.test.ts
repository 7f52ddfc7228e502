import { machineFingerprint } from '@svc-licensing/cert-format';
import { describe, expect, it } from 'vitest';
import { createWorld } from '../support/payment-world.js';

// Activations of many licenses at once on MariaDB, where their transactions really interleave.
describe('concurrent activations on MariaDB', () => {
  it('48 activations of 24 licenses at once all answer 200 without a single deadlock retry', async () => {
    // No retries: a locking read of the missing activation row used to lock an index gap that
    // activations of neighbouring licenses inserted into, and about 3% of them deadlocked.
    const w = await createWorld({ mode: 'in-process', store: 'mysql' }, { store: { mysql: { poolSize: 16, maxRetries: 0 } } });
    const plan = (await w.api('POST', `/products/${w.productId}/plans`, { code: 'duo', name: 'Duo', kind: 'perpetual', maxActivations: 2 })).body;
    const licenses = await Promise.all(
      Array.from({ length: 24 }, async (_, i) => (await w.api('POST', '/licenses', { plan: plan.id, email: `buyer${i}@example.com` })).body as { id: string; key: string }),
    );
    const answers = await Promise.all(
      licenses.flatMap((license, i) =>
        [0, 1].map((m) => w.client('activate', { product: w.productId, key: license.key, fingerprint: machineFingerprint(w.productId, `machine-${i}-${m}`) })),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(48).fill(200));
    for (const license of licenses) expect((await w.api('GET', `/licenses/${license.id}`)).body.activationCount).toBe(2);
  });
});
