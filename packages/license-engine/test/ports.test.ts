import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createIdGenerator, createLicenseEngine, createMemoryStore, createSecretBox, cryptoRandom, systemClock } from '@svc-licensing/license-engine';
import { createTestClock, createTestRandom } from './fixtures.js';

describe('createIdGenerator', () => {
  it('makes <prefix>_ + 26 Crockford base32 characters that sort by creation time', () => {
    const clock = createTestClock();
    const ids = createIdGenerator({ clock, random: createTestRandom() });
    const first = ids.next('lic');
    expect(first).toMatch(/^lic_[0-9a-hjkmnp-tv-z]{26}$/);
    clock.advance(1);
    const second = ids.next('lic');
    expect(second > first).toBe(true);
    expect(first.slice(4, 14)).toBe(Date.parse('2030-01-15T10:00:00Z').toString(32).padStart(10, '0').replace(/./g, (ch) => '0123456789abcdefghjkmnpqrstvwxyz'[parseInt(ch, 32)]!));
  });

  it('is strictly increasing within one millisecond and when the clock steps back', () => {
    const clock = createTestClock();
    const ids = createIdGenerator({ clock, random: cryptoRandom });
    const made: string[] = [];
    for (let i = 0; i < 1000; i++) made.push(ids.next('evt'));
    clock.advance(-5000);
    for (let i = 0; i < 10; i++) made.push(ids.next('evt'));
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(made.length);
  });
});

describe('createSecretBox', () => {
  const masterKey = new Uint8Array(32).fill(9);
  const box = createSecretBox(masterKey);
  const secret = new TextEncoder().encode('a 32-byte seed or a license key!');
  const forKey = { purpose: 'license-key', record: 'lic_1' } as const;

  it('round-trips, with a fresh nonce each time', () => {
    const one = box.encrypt(secret, forKey);
    const two = box.encrypt(secret, forKey);
    expect(one).not.toBe(two);
    expect(one.startsWith('v2.')).toBe(true);
    expect(box.decrypt(one, forKey)).toEqual(secret);
    expect(Buffer.from(one.slice(3), 'base64url').includes(Buffer.from(secret))).toBe(false);
  });

  it('refuses tampered ciphertext, another master key and other spellings of the same bytes', () => {
    const sealed = box.encrypt(secret, forKey);
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    raw[14] = raw[14]! ^ 1;
    expect(() => box.decrypt(`v2.${raw.toString('base64url')}`, forKey)).toThrow();
    expect(() => createSecretBox(new Uint8Array(32).fill(8)).decrypt(sealed, forKey)).toThrow();
    expect(() => box.decrypt('plain text', forKey)).toThrow();
    // Node's lenient decoder reads these as the same bytes; the box does not.
    for (const other of [`${sealed}=`, `${sealed}T`, `${sealed.slice(0, 20)}!${sealed.slice(20)}`]) {
      expect(() => box.decrypt(other, forKey)).toThrow();
    }
  });

  it('opens a value only for the purpose and record it was sealed for', () => {
    const sealed = box.encrypt(secret, { purpose: 'webhook-secret', record: 'int_1' });
    expect(box.decrypt(sealed, { purpose: 'webhook-secret', record: 'int_1' })).toEqual(secret);
    expect(() => box.decrypt(sealed, { purpose: 'webhook-secret', record: 'int_2' })).toThrow();
    for (const purpose of ['operator-link', 'cursor', 'license-key', 'signing-key', 'dkim-key', 'provider-api-key'] as const) {
      expect(() => box.decrypt(sealed, { purpose, record: 'int_1' })).toThrow();
      expect(() => box.decrypt(sealed, { purpose, record: '' })).toThrow();
    }
    expect(() => box.encrypt(secret, { purpose: 'nonsense', record: '' } as never)).toThrow(TypeError);
  });

  it('still opens a stored value of the first form (v1: the master key itself) where it was written, never as a link or cursor', () => {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', masterKey, nonce);
    const body = Buffer.concat([cipher.update(secret), cipher.final()]);
    const v1 = `v1.${Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url')}`;
    for (const purpose of ['license-key', 'signing-key', 'dkim-key', 'webhook-secret', 'provider-api-key'] as const) {
      expect(box.decrypt(v1, { purpose, record: 'any_1' })).toEqual(secret);
    }
    expect(() => box.decrypt(v1, { purpose: 'operator-link', record: '' })).toThrow();
    expect(() => box.decrypt(v1, { purpose: 'cursor', record: '' })).toThrow();
  });

  it('requires a 32-byte master key', () => {
    expect(() => createSecretBox(new Uint8Array(16))).toThrow(/32-byte/);
  });
});

describe('system ports', () => {
  it('systemClock tells the time and cryptoRandom returns the bytes asked for, also beyond 65,536', () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
    const big = cryptoRandom.bytes(70_000);
    expect(big).toHaveLength(70_000);
    expect(big.subarray(65_536).some((b) => b !== 0)).toBe(true);
  });

  it('cryptoRandom never hands out the same bytes twice for small requests, across pool refills', () => {
    // 16-byte requests well past several 4 KiB pools: any repeat or zeroed slice would show here.
    const seen = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const bytes = cryptoRandom.bytes(16);
      expect(bytes).toHaveLength(16);
      seen.add(Buffer.from(bytes).toString('hex'));
    }
    expect(seen.size).toBe(2_000);
    expect(seen.has('0'.repeat(32))).toBe(false);
    // A copy: changing what was returned changes nothing handed out later.
    const first = cryptoRandom.bytes(8);
    first.fill(7);
    expect(Buffer.from(cryptoRandom.bytes(8)).equals(Buffer.from(first))).toBe(false);
    // Sizes that do not divide the pool still come back whole.
    for (const size of [1, 3, 255, 256, 257]) expect(cryptoRandom.bytes(size)).toHaveLength(size);
  });
});

describe('createLicenseEngine defaults', () => {
  it('runs on the system clock, crypto random and time-sortable IDs when only a store and secrets are given', async () => {
    const engine = createLicenseEngine({ store: createMemoryStore(), secrets: createSecretBox(new Uint8Array(32).fill(3)) });
    const before = Date.now();
    const { account } = await engine.createAccount({ name: 'Acme', ownerEmail: 'owner@acme.test' });
    const first = await engine.createProduct(account.id, { name: 'One', keyPrefix: 'ONE-' });
    expect(first.id).toMatch(/^prd_[0-9a-hjkmnp-tv-z]{26}$/);
    // The product was stamped with the real time, to the second.
    expect(Date.parse(first.createdAt)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(Date.parse(first.createdAt)).toBeLessThanOrEqual(Date.now());
    const plan = await engine.createPlan(account.id, first.id, { code: 'pro', kind: 'perpetual' });
    expect(plan.id > first.id.replace('prd_', 'pln_')).toBe(true);
  });
});
