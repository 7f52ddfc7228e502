import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { createSecretBox, cryptoRandom, sealOperatorSignInLink } from '@svc-licensing/license-engine';
import { verifyCertificate } from '@svc-licensing/verifier';
import { expect, it } from 'vitest';
import { createProduct, fingerprint, licensed } from '../support/fixtures.js';
import { createHarness, describeEverySetup, PUBLIC_ORIGIN, type Harness } from '../support/harness.js';

/**
 * Issue 25, item 1: every value the secret box seals is bound to its purpose (and its record), so
 * a ciphertext of one kind is never accepted as another. Before, an operator sign-in link was the
 * box's ciphertext of `{a, x}` under the same key as the webhook secrets vendors choose: a vendor
 * could store `{"a":"<another account>","x":...}` as its webhook secret, read the ciphertext from a
 * backup or the integrations row, and post it to /sign-in as an owner of the other account.
 */

const YEAR = 365 * 86_400_000;

/** Posts a token to the sign-in page as the page's own form would. */
async function postSignIn(h: Harness, token: string) {
  const res = await h.fetch('/sign-in', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: PUBLIC_ORIGIN },
    body: new URLSearchParams({ token }).toString(),
    redirect: 'manual',
  });
  await res.text();
  return { status: res.status, cookie: res.headers.get('set-cookie') };
}

/** The integration row as a database backup shows it. */
const storedIntegration = (h: Harness, id: string) => h.store().transaction((tx) => tx.get('integrations', id), { readOnly: true });

/** A value sealed the way stored secrets were sealed before purposes (v1: AES-256-GCM under the master key itself). */
function sealV1(masterKey: Uint8Array, plaintext: Uint8Array): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', masterKey, nonce);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return `v1.${Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url')}`;
}

describeEverySetup('sealed values are bound to their purpose', (setup) => {
  it("a vendor's stored webhook secret or provider API key posted as an operator link signs in to nothing (404, no cookie)", async () => {
    const h = await createHarness(setup);
    const victim = h.accountId;
    const attacker = await h.newAccount('unlimited');
    const product = await createProduct(h, {}, attacker.apiKey);
    const claim = JSON.stringify({ a: victim, x: h.clock.now() + YEAR, n: 'AAAAAAAAAAAAAAAAAAAAAA' });
    const created = await h.api('POST', '/integrations', { provider: 'provider_a', product: product.id, webhookSecret: claim, apiKey: claim }, { key: attacker.apiKey });
    expect(created.status).toBe(201);
    const row = (await storedIntegration(h, created.body.id))!;
    for (const sealed of [row.webhookSecret!, row.apiKey!]) {
      const answer = await postSignIn(h, `svc_op_${sealed}`);
      expect(answer.status).toBe(404);
      expect(answer.cookie).toBeNull();
    }
    // Nothing was recorded as a used link either.
    const links = await h.store().transaction((tx) => tx.findMany('linkTokens', { accountId: victim }), { readOnly: true });
    expect(links).toEqual([]);
  });

  it("a stored secret's ciphertext is not a list cursor of the vendor's own list (400)", async () => {
    const h = await createHarness(setup);
    const product = await createProduct(h);
    // What a cursor of GET /v1/integrations held before: a digest of its scope, a dot, the store's cursor.
    const digest = createHash('sha256').update(JSON.stringify(['integrations', h.accountId])).digest('base64url').slice(0, 22);
    const forged = `${digest}.${Buffer.from(product.id, 'utf8').toString('base64url')}`;
    const created = await h.api('POST', '/integrations', { provider: 'provider_b', product: product.id, webhookSecret: forged });
    expect(created.status).toBe(201);
    const row = (await storedIntegration(h, created.body.id))!;
    const listed = await h.api('GET', `/integrations?cursor=${encodeURIComponent(row.webhookSecret!.slice(row.webhookSecret!.indexOf('.') + 1))}`);
    expect(listed.status).toBe(400);
    expect(listed.body.error.code).toBe('invalid_request');
  });

  it('a real operator link still signs in, once', async () => {
    const h = await createHarness(setup);
    const { token } = sealOperatorSignInLink({ secrets: createSecretBox(h.masterKey), clock: h.clock, random: cryptoRandom }, h.accountId);
    const first = await postSignIn(h, token);
    expect(first.status).toBe(303);
    expect(first.cookie).toMatch(/^svc_session=svc_ses_/);
    expect((await postSignIn(h, token)).status).toBe(410);
  });

  it('values stored before purposes existed (v1) keep working where they were written: license keys and signing keys', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h);
    // Rewrite the stored license key and the product's signing key in the first form, as an older server left them.
    await h.store().transaction(async (tx) => {
      const record = (await tx.get('licenses', license.id))!;
      await tx.update('licenses', { ...record, keyEncrypted: sealV1(h.masterKey, new TextEncoder().encode(license.key)) });
    });
    const exported = await (async () => {
      const owner = await h.signIn();
      const res = await h.api('POST', `/products/${product.id}/keys/export`, undefined, { session: owner });
      expect(res.status).toBe(200);
      return res.body as { keys: Array<{ kid: string; privateKey: string; publicKey: string }> };
    })();
    await h.store().transaction(async (tx) => {
      for (const key of await tx.findMany('signingKeys', { productId: product.id })) {
        const seed = Buffer.from(exported.keys.find((k) => k.kid === key.kid)!.privateKey, 'base64url');
        await tx.update('signingKeys', { ...key, privateKey: sealV1(h.masterKey, seed) });
      }
    });
    await h.restart(); // no signer cached from before the rewrite

    const detail = await h.api('GET', `/licenses/${license.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.key).toBe(license.key);
    const fp = fingerprint(product.id, 1);
    const activated = await h.client('activate', { product: product.id, key: license.key, fingerprint: fp });
    expect(activated.status).toBe(200);
    const publicKeys = Object.fromEntries(exported.keys.map((k) => [k.kid, k.publicKey]));
    const verified = await verifyCertificate(activated.body.certificate, { publicKeys, product: product.id, fingerprint: fp, appMajor: 1, now: Math.floor(h.clock.now() / 1000) });
    expect(verified.outcome).toBe('valid');
  });
});
