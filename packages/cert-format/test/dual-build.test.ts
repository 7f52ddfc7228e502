import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// The BUILT package (dist, from `pnpm build`), loaded the way users load it: ESM import and CJS require.
const require = createRequire(import.meta.url);
const dist = (file: string) => new URL(`../dist/${file}`, import.meta.url).pathname;

describe('published builds', () => {
  it('sign through the CJS ./sign entry and decode through the ESM entry to the same payload', async () => {
    const esm = await import(dist('index.js'));
    const cjsSign = require(dist('sign.cjs'));
    const { seed } = cjsSign.generateSigningKeyPair();
    const payload = {
      v: 1, kid: 'k1', product: 'prd_1', license: 'lic_1', plan: 'pro', entitlements: [], status: 'active', seats: 1,
      licensee: 'L', fingerprint: esm.machineFingerprint('prd_1', 'm'), paidUntil: null, validUntil: null, maxMajor: null,
      issuedAt: 1, refreshAfter: 86_401, expiresAt: 2,
    };
    const decoded = esm.decodeCertificate(cjsSign.createCertificateSigner(seed).sign(payload));
    expect(decoded.ok && decoded.payload).toEqual(payload);
  });

  it('CertFormatError.is recognizes an error thrown by the other module format', async () => {
    const esm = await import(dist('index.js'));
    const cjsSign = require(dist('sign.cjs'));
    let thrown: unknown;
    try {
      cjsSign.createCertificateSigner(new Uint8Array(3));
    } catch (error) {
      thrown = error;
    }
    expect(esm.CertFormatError.is(thrown)).toBe(true);
    expect((thrown as { code: string }).code).toBe('invalid_private_key');
  });

  it('the node build (the `node` export condition) hashes with node:crypto to the same digests as the universal build', async () => {
    const universal = await import(dist('index.js'));
    const node = await import(dist('node/index.js'));
    const nodeCjs = require(dist('node/index.cjs'));
    const keys = Array.from({ length: 20 }, () => universal.generateLicenseKey('ACME', (n: number) => new Uint8Array(randomBytes(n))));
    // Typed variants of keys, and text a key never is (a lone surrogate is encoded as U+FFFD by both).
    const texts = [...keys.flatMap((k: string) => [k, k.toLowerCase(), ` ${k.replaceAll('-', ' - ')}\n`]), '', 'é€𝄞-x', '\ud800', randomBytes(40).toString('latin1')];
    for (const text of texts) {
      const expected = universal.hashLicenseKey(text);
      expect(node.hashLicenseKey(text), text).toBe(expected);
      expect(nodeCjs.hashLicenseKey(text), text).toBe(expected);
      expect(node.machineFingerprint('prd_1', text), text).toBe(universal.machineFingerprint('prd_1', text));
    }
    // Only the node build loads node:crypto; the universal one (what browsers get) does not.
    expect(readFileSync(dist('node/index.cjs'), 'utf8')).toMatch(/require\("(node:)?crypto"\)/);
    expect(readFileSync(dist('index.cjs'), 'utf8')).not.toMatch(/require\("(node:)?crypto"\)/);
  });
});
