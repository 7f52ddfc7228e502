import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hashLicenseKey, normalizeLicenseKey } from '@svc-licensing/cert-format';
import { verifyCertificate } from '@svc-licensing/verifier';
import { buildVectors, serializeVectors } from './cases.js';
import { checkVectorFile } from './format.mjs';
import { caseOptions, loadVectors, VECTORS_PATH } from './load.js';

describe('test-vectors/crt1.json', () => {
  it('is exactly what `pnpm vectors` regenerates, byte for byte', () => {
    expect(serializeVectors(buildVectors())).toBe(readFileSync(VECTORS_PATH, 'utf8'));
  });

  it('holds the spec\'s 12 published cases with their expected outcomes and app majors', () => {
    const byName = new Map(loadVectors().cases.map((c) => [c.name, c]));
    const published: [string, string, number][] = [
      ['valid', 'valid', 1],
      ['expired (now at expiresAt)', 'expired', 1],
      ['tampered payload', 'invalid_signature', 1],
      ['unknown kid', 'invalid_signature', 1],
      ['wrong product', 'wrong_product', 1],
      ['wrong machine', 'wrong_machine', 1],
      ['revoked status', 'not_usable', 1],
      ['perpetual with maxMajor 1, app major 2', 'version_not_covered', 2],
      ['perpetual with maxMajor 1, app major 1', 'valid', 1],
      ['clock rolled back', 'clock_tampered', 1],
      ['malformed', 'malformed', 1],
      ['bad prefix', 'malformed', 1],
    ];
    for (const [name, expected, appMajor] of published) {
      expect(byName.get(name), name).toMatchObject({ expected, appMajor });
    }
    expect(byName.get('clock rolled back')?.highestIssuedAt).toEqual(expect.any(Number));
  });

  it('has unique case names and covers every outcome', () => {
    const { cases } = loadVectors();
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
    expect(new Set(cases.map((c) => c.expected))).toEqual(
      new Set(['valid', 'malformed', 'invalid_signature', 'wrong_product', 'wrong_machine', 'expired', 'not_usable', 'version_not_covered', 'clock_tampered']),
    );
  });

  it('passes every case through the verifier', async () => {
    const file = loadVectors();
    for (const c of file.cases) {
      expect((await verifyCertificate(c.certificate, caseOptions(file, c))).outcome, c.name).toBe(c.expected);
    }
  });

  it('gives key normalizations that match the cert-format implementation', () => {
    const { keyNormalization } = loadVectors();
    expect(keyNormalization.length).toBeGreaterThan(0);
    for (const k of keyNormalization) {
      expect(normalizeLicenseKey(k.input)).toBe(k.normalized);
      expect(hashLicenseKey(k.input)).toBe(k.sha256);
    }
  });

  it('format check names what is wrong in a file that does not fit', () => {
    const result = checkVectorFile({ format: 'other', publicKeys: {}, cases: [{ name: 'x' }] });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problems).toEqual(expect.arrayContaining([expect.stringContaining('"format"'), expect.stringContaining('cases[0].certificate is missing')]));
    }
  });
});
