import { verifyCertificate } from '@svc-licensing/verifier';
import { expect, it } from 'vitest';
import { fingerprint, licensed } from '../support/fixtures.js';
import { createHarness, describeEverySetup } from '../support/harness.js';

describeEverySetup('a server restart on the same store', (setup) => {
  it('keeps API keys, products, signing keys, licenses, activations and limits; certificates still verify', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h);
    const fp = fingerprint(product.id, 1);
    const activated = await h.client('activate', { product: product.id, key: license.key, fingerprint: fp, name: 'Laptop' });
    expect(activated.status).toBe(200);
    const keysBefore = (await h.api('GET', `/products/${product.id}/keys`)).body.data;
    const detailBefore = (await h.api('GET', `/licenses/${license.id}`)).body;

    // A restart takes time; a new ID generator then never sorts before the old one's IDs.
    h.clock.advance(60_000);
    await h.restart();

    expect((await h.api('GET', `/licenses/${license.id}`)).body).toEqual(detailBefore);
    const keysAfter = (await h.api('GET', `/products/${product.id}/keys`)).body.data;
    expect(keysAfter).toEqual(keysBefore);

    // The signing key was stored encrypted: signing after the restart proves it decrypts.
    const validated = await h.client('validate', { product: product.id, key: license.key, fingerprint: fp });
    expect(validated.status).toBe(200);
    const publicKeys = Object.fromEntries(keysAfter.map((k: any) => [k.kid, k.publicKey]));
    const now = Math.floor(h.clock.now() / 1000);
    const verified = await verifyCertificate(validated.body.certificate, { publicKeys, product: product.id, fingerprint: fp, appMajor: 1, now });
    expect(verified.outcome).toBe('valid');
    expect(verified.payload).toMatchObject({ license: license.id, licensee: 'Ada Buyer' });

    // The activation limit (2) counts the machine activated before the restart.
    const second = await h.client('activate', { product: product.id, key: license.key, fingerprint: fingerprint(product.id, 2) });
    expect(second.status).toBe(200);
    const third = await h.client('activate', { product: product.id, key: license.key, fingerprint: fingerprint(product.id, 3) });
    expect(third.status).toBe(409);
    expect(third.body.error.code).toBe('activation_limit');
    const after = (await h.api('GET', `/licenses/${license.id}`)).body;
    expect(after.activations.map((a: any) => a.id).sort()).toEqual([activated.body.activation, second.body.activation].sort());

    const events = (await h.api('GET', `/events?license=${license.id}`)).body.data;
    expect(events.at(-1).type).toBe('license.created');
    expect(events.filter((e: any) => e.type === 'license.created')).toHaveLength(1);
  });
});
