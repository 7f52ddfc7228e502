import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  LICENSE_KEY_ALPHABET,
  generateLicenseKey,
  hashLicenseKey,
  isWellFormedLicenseKey,
  normalizeLicenseKey,
} from '@svc-licensing/cert-format';

describe('license keys', () => {
  it('are keyPrefix followed by four hyphen-separated groups of five unambiguous characters', () => {
    const key = generateLicenseKey('ACME-');
    expect(key).toMatch(new RegExp(`^ACME-[${LICENSE_KEY_ALPHABET}]{5}(-[${LICENSE_KEY_ALPHABET}]{5}){3}$`));
    expect(isWellFormedLicenseKey(key)).toBe(true);
    for (const confusable of '01IOL') expect(LICENSE_KEY_ALPHABET).not.toContain(confusable);
  });

  it('differ from one call to the next (CSPRNG)', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateLicenseKey('')));
    expect(keys.size).toBe(200);
  });

  it('skip random bytes at or above 240 so every character is equally likely', () => {
    const queue = [240, 255, ...Array.from({ length: 30 }, (_, i) => i + 30)];
    const key = generateLicenseKey('P', (n) => Uint8Array.from(queue.splice(0, n)));
    expect(key).toBe(`P${LICENSE_KEY_ALPHABET.slice(0, 5)}-${LICENSE_KEY_ALPHABET.slice(5, 10)}-${LICENSE_KEY_ALPHABET.slice(10, 15)}-${LICENSE_KEY_ALPHABET.slice(15, 20)}`);
  });

  it('use every alphabet character about equally often', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 1500; i++) {
      for (const c of generateLicenseKey('', (n) => new Uint8Array(randomBytes(n))).replaceAll('-', '')) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect(counts.size).toBe(30);
    for (const count of counts.values()) expect(count).toBeGreaterThan(700); // expected 1000 each
  });

  it('normalize by removing whitespace and uppercasing, so any case and spacing finds the key', () => {
    const key = generateLicenseKey('ACME-');
    const typed = ` ${key.toLowerCase().replaceAll('-', ' - ')}\t\n`;
    expect(normalizeLicenseKey(typed)).toBe(key);
    expect(hashLicenseKey(typed)).toBe(hashLicenseKey(key));
    expect(hashLicenseKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
  });

  it('keep hyphens: a key typed without them is a different key', () => {
    const key = generateLicenseKey('ACME-');
    expect(hashLicenseKey(key.replaceAll('-', ''))).not.toBe(hashLicenseKey(key));
    expect(isWellFormedLicenseKey(key.replaceAll('-', ''))).toBe(false);
  });

  it('recognize malformed keys', () => {
    expect(isWellFormedLicenseKey('ACME-AAAAA-AAAAA-AAAAA')).toBe(false);
    expect(isWellFormedLicenseKey('ACME-AAAAA-AAAAA-AAAAA-AAAA0')).toBe(false);
    expect(isWellFormedLicenseKey(`${'X'.repeat(33)}AAAAA-AAAAA-AAAAA-AAAAA`)).toBe(false);
    expect(isWellFormedLicenseKey(42)).toBe(false);
    expect(isWellFormedLicenseKey('acme-aaaaa-bbbbb-ccccc-ddddd')).toBe(true);
  });
});
