import { randomBytes } from 'node:crypto';
import { generateLicenseKey, hashLicenseKey } from '@svc-licensing/cert-format';
import { describe, expect, it } from 'vitest';
import { licenseKeyHash } from '../src/_internal/hash.js';

describe('the key hash the engine stores and looks licenses up by', () => {
  it('is the hash cert-format publishes (hashLicenseKey), for typed variants of a key and any text', () => {
    const keys = Array.from({ length: 50 }, () => generateLicenseKey('ACME', (n) => new Uint8Array(randomBytes(n))));
    for (const key of keys) {
      for (const typed of [key, key.toLowerCase(), ` ${key.replaceAll('-', ' - ')}\n`]) expect(licenseKeyHash(typed), typed).toBe(hashLicenseKey(typed));
    }
    for (const text of ['', 'é€𝄞-x', '\ud800', randomBytes(40).toString('latin1')]) expect(licenseKeyHash(text)).toBe(hashLicenseKey(text));
  });
});
