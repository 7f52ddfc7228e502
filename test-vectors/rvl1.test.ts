import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as verifier from '@svc-licensing/verifier';
import { checkRevocationVectorFile } from './format.mjs';
import { loadRevocationVectors, loadVectors, REVOCATION_VECTORS_PATH, VECTORS_PATH } from './load.js';
import { buildRevocationVectors, serializeRevocationVectors } from './rvl1-cases.js';
import { runRevocationVectors } from './rvl1-run.mjs';
import { buildVectors, serializeVectors } from './cases.js';

describe('test-vectors/rvl1.json', () => {
  it('is exactly what `pnpm vectors` regenerates, byte for byte, and crt1.json is unchanged by it', () => {
    expect(serializeRevocationVectors(buildRevocationVectors())).toBe(readFileSync(REVOCATION_VECTORS_PATH, 'utf8'));
    expect(serializeVectors(buildVectors())).toBe(readFileSync(VECTORS_PATH, 'utf8'));
  });

  it('uses the CRT1 vectors\' test-only keys, product and machine', () => {
    const [rvl1, crt1] = [loadRevocationVectors(), loadVectors()];
    expect([rvl1.publicKeys, rvl1.product, rvl1.fingerprint]).toEqual([crt1.publicKeys, crt1.product, crt1.fingerprint]);
  });

  it('holds the cases issue 29 asks for, with their outcomes', () => {
    const file = loadRevocationVectors();
    const lists = new Map(file.lists.map((c) => [c.name, c.expected]));
    const certificates = new Map(file.certificates.map((c) => [c.name, c.expected]));
    expect(Object.fromEntries(['valid list', 'tampered payload (seq raised, signature kept)', 'unknown kid', 'wrong product', 'older seq than the one held'].map((n) => [n, lists.get(n)]))).toEqual({
      'valid list': 'valid',
      'tampered payload (seq raised, signature kept)': 'invalid_signature',
      'unknown kid': 'invalid_signature',
      'wrong product': 'wrong_product',
      'older seq than the one held': 'older_seq',
    });
    const named = ['listed license', 'listed machine freed after the certificate was issued', 'listed machine freed before the certificate was issued', 'entry past its drop-out instant is ignored'];
    expect(named.map((n) => certificates.get(n))).toEqual(['revoked', 'revoked', 'valid', 'valid']);
  });

  it('has unique names and covers every list outcome and revoked', () => {
    const file = loadRevocationVectors();
    expect(new Set(file.lists.map((c) => c.name)).size).toBe(file.lists.length);
    expect(new Set(file.certificates.map((c) => c.name)).size).toBe(file.certificates.length);
    expect(new Set(file.lists.map((c) => c.expected))).toEqual(new Set(['valid', 'malformed', 'invalid_signature', 'wrong_product', 'older_seq']));
    expect(file.certificates.map((c) => c.expected)).toEqual(expect.arrayContaining(['revoked', 'valid', 'wrong_product', 'wrong_machine', 'malformed']));
  });

  it('passes every case through the verifier', async () => {
    const rows = await runRevocationVectors(verifier, loadRevocationVectors());
    expect(rows.map(([name, got]) => [name, got])).toEqual(rows.map(([name, , expected]) => [name, expected]));
  });

  it('format check names what is wrong in a file that does not fit', () => {
    const result = checkRevocationVectorFile({ format: 'rvl1-test-vectors-v1', publicKeys: { k1: 'x' }, product: 'p', fingerprint: 'f', lists: [{ name: 'x', expected: 'revoked' }], certificates: [] });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problems).toEqual(['lists[0].list is missing', 'lists[0].expected must be one of valid, malformed, invalid_signature, wrong_product, older_seq', '"certificates" must be a non-empty array']);
    }
  });
});
