import { createPrivateKey, createPublicKey } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Catalog, TestEngine } from './fixtures.js';
import { MASTER_KEY, codeOf, createCatalog, createTestEngine, fingerprint, verifyCertificate } from './fixtures.js';
import { createSecretBox } from '@svc-licensing/license-engine';

let t: TestEngine;
let c: Catalog;

beforeEach(async () => {
  t = createTestEngine();
  c = await createCatalog(t);
});

const keys = async () => (await t.engine.listSigningKeys(c.account.id, c.product.id)).data;
const kidOf = (certificate: string) => JSON.parse(Buffer.from(certificate.split('.')[1]!, 'base64url').toString()).kid as string;

describe('signing key statuses', () => {
  it('creating a product creates k1, active, with a 32-byte Ed25519 public key', async () => {
    const [k1, ...rest] = await keys();
    expect(rest).toEqual([]);
    expect(k1).toEqual({ kid: 'k1', publicKey: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), status: 'active', createdAt: c.product.createdAt, activatedAt: c.product.createdAt });
  });

  it('a new key is pending and signs nothing: the active key keeps signing', async () => {
    const { license } = await t.engine.createLicense(c.account.id, { plan: c.plans.pro.id, email: 'a@example.test', paidUntil: '2031-01-01T00:00:00Z' });
    const k2 = await t.engine.createSigningKey(c.account.id, c.product.id);
    expect([k2.kid, k2.status, k2.activatedAt]).toEqual(['k2', 'pending', null]);
    const { certificate } = await t.engine.activate({ product: c.product.id, key: license.key, fingerprint: fingerprint(1) });
    expect(kidOf(certificate)).toBe('k1');
  });

  it('a second pending key is conflict', async () => {
    await t.engine.createSigningKey(c.account.id, c.product.id);
    expect(await codeOf(t.engine.createSigningKey(c.account.id, c.product.id))).toBe('conflict');
    expect((await keys()).map((k) => k.kid)).toEqual(['k1', 'k2']);
  });

  it('activating the pending key makes it active and the previous active key retired; it signs from then on', async () => {
    const { license } = await t.engine.createLicense(c.account.id, { plan: c.plans.pro.id, email: 'a@example.test', paidUntil: '2031-01-01T00:00:00Z' });
    await t.engine.activate({ product: c.product.id, key: license.key, fingerprint: fingerprint(1) });
    await t.engine.createSigningKey(c.account.id, c.product.id);
    t.clock.advance(60_000);
    const k2 = await t.engine.activateSigningKey(c.account.id, c.product.id, 'k2');
    expect([k2.status, k2.activatedAt]).toEqual(['active', '2030-01-15T10:01:00Z']);
    const listed = await keys();
    expect(listed.map((k) => [k.kid, k.status])).toEqual([['k1', 'retired'], ['k2', 'active']]);
    const refreshed = await t.engine.validate({ product: c.product.id, key: license.key, fingerprint: fingerprint(1) });
    expect(kidOf(refreshed.certificate)).toBe('k2');
    verifyCertificate(refreshed.certificate, listed[1]!.publicKey);
    const fresh = await t.engine.activate({ product: c.product.id, key: license.key, fingerprint: fingerprint(2) });
    expect(kidOf(fresh.certificate)).toBe('k2');
  });

  it('activating the active key is idempotent; activating a retired key is conflict; an unknown kid is not_found', async () => {
    await t.engine.createSigningKey(c.account.id, c.product.id);
    await t.engine.activateSigningKey(c.account.id, c.product.id, 'k2');
    const again = await t.engine.activateSigningKey(c.account.id, c.product.id, 'k2');
    expect(again.status).toBe('active');
    expect(await codeOf(t.engine.activateSigningKey(c.account.id, c.product.id, 'k1'))).toBe('conflict');
    expect(await codeOf(t.engine.activateSigningKey(c.account.id, c.product.id, 'k9'))).toBe('not_found');
    const rotations = (await t.engine.listEvents(c.account.id)).data.filter((e) => e.type === 'signing_key.rotated');
    expect(rotations).toHaveLength(1);
  });

  it('keys list oldest first, retired keys included; k3 follows after two rotations', async () => {
    for (let i = 0; i < 2; i++) {
      const key = await t.engine.createSigningKey(c.account.id, c.product.id);
      await t.engine.activateSigningKey(c.account.id, c.product.id, key.kid);
    }
    expect((await keys()).map((k) => [k.kid, k.status])).toEqual([['k1', 'retired'], ['k2', 'retired'], ['k3', 'active']]);
  });

  it('another account cannot see or rotate the keys: not_found', async () => {
    const { account: other } = await t.engine.createAccount({ name: 'Other', ownerEmail: 'o@example.test' });
    expect(await codeOf(t.engine.listSigningKeys(other.id, c.product.id))).toBe('not_found');
    expect(await codeOf(t.engine.createSigningKey(other.id, c.product.id))).toBe('not_found');
  });
});

describe('private keys', () => {
  it('are stored encrypted: the record holds AES-GCM ciphertext, never the seed, and no list shows them', async () => {
    const [record] = await t.store.transaction((tx) => tx.findMany('signingKeys', { productId: c.product.id }));
    const exported = await t.engine.exportSigningKeys(c.account.id, c.product.id);
    const seed = Buffer.from(exported.keys[0]!.privateKey, 'base64url');
    expect(record!.privateKey.startsWith('v2.')).toBe(true);
    expect(record!.privateKey).not.toContain(exported.keys[0]!.privateKey);
    const sealedFor = { purpose: 'signing-key', record: record!.id } as const;
    expect(Buffer.from(createSecretBox(MASTER_KEY).decrypt(record!.privateKey, sealedFor)).equals(seed)).toBe(true);
    expect(() => createSecretBox(new Uint8Array(32)).decrypt(record!.privateKey, sealedFor)).toThrow();
    expect(JSON.stringify(await keys())).not.toContain(exported.keys[0]!.privateKey);
    expect(JSON.stringify(await t.engine.listSigningKeys(c.account.id, c.product.id))).not.toMatch(/privateKey/);
  });

  it('the owner export holds every key with its seed and PKCS#8 form, matching the public key; it is audited', async () => {
    await t.engine.createSigningKey(c.account.id, c.product.id);
    const doc = await t.engine.exportSigningKeys(c.account.id, c.product.id);
    expect(doc).toMatchObject({
      format: 'svc-signing-keys-v1',
      exportedAt: '2030-01-15T10:00:00Z',
      product: { id: c.product.id, name: 'Acme Editor', keyPrefix: 'ACME-' },
      certificateFormat: 'CRT1',
    });
    expect(doc.keys.map((k) => [k.kid, k.status])).toEqual([['k1', 'active'], ['k2', 'pending']]);
    for (const key of doc.keys) {
      const fromPkcs8 = createPublicKey(createPrivateKey({ key: Buffer.from(key.privateKeyPkcs8, 'base64'), format: 'der', type: 'pkcs8' }));
      expect(fromPkcs8.export({ format: 'jwk' }).x).toBe(key.publicKey);
      expect(Buffer.from(key.privateKey, 'base64url')).toHaveLength(32);
      expect(Object.keys(key).sort()).toEqual(['activatedAt', 'createdAt', 'kid', 'privateKey', 'privateKeyPkcs8', 'publicKey', 'status']);
    }
    const [event] = (await t.engine.listEvents(c.account.id)).data;
    expect(event).toMatchObject({ type: 'signing_key.exported', license: null, data: { product: c.product.id, kids: ['k1', 'k2'] } });
  });

  it('exports are limited to 10 per hour (rate_limited), and the service keeps signing after one', async () => {
    for (let i = 0; i < 10; i++) await t.engine.exportSigningKeys(c.account.id, c.product.id);
    expect(await codeOf(t.engine.exportSigningKeys(c.account.id, c.product.id))).toBe('rate_limited');
    t.clock.advance(3_600_000);
    await t.engine.exportSigningKeys(c.account.id, c.product.id);
    const { license } = await t.engine.createLicense(c.account.id, { plan: c.plans.pro.id, email: 'a@example.test', paidUntil: '2031-01-01T00:00:00Z' });
    const { certificate } = await t.engine.activate({ product: c.product.id, key: license.key, fingerprint: fingerprint(1) });
    verifyCertificate(certificate, (await keys())[0]!.publicKey);
  });
});
