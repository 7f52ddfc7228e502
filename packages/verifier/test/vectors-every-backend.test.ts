import { describe, expect, it } from 'vitest';
import * as verifier from '@svc-licensing/verifier';
import { availableBackends, selectedBackend, verifyCertificate, type BackendName } from '@svc-licensing/verifier';
import { caseOptions, loadRevocationVectors, loadVectors } from '../../../test-vectors/load.js';
import { runRevocationVectors } from '../../../test-vectors/rvl1-run.mjs';

const file = loadVectors();
const BACKENDS: BackendName[] = ['node', 'webcrypto', 'noble'];

describe('Ed25519 backends in Node', () => {
  it('offers node:crypto, WebCrypto and noble, and auto picks node:crypto', async () => {
    expect(await availableBackends()).toEqual(BACKENDS);
    expect(await selectedBackend()).toBe('node');
  });

  for (const backend of BACKENDS) {
    it(`${backend}: every published vector gives its expected outcome`, async () => {
      const got = [];
      for (const c of file.cases) {
        got.push([c.name, (await verifyCertificate(c.certificate, { ...caseOptions(file, c), backend })).outcome]);
      }
      expect(got).toEqual(file.cases.map((c) => [c.name, c.expected]));
    });
  }
});

describe('backend agreement beyond the vectors', () => {
  const [valid] = file.cases.filter((c) => c.name === 'valid');
  const text = valid!.certificate;

  it('node, webcrypto and noble give the same outcome on random corruptions of a valid certificate', async () => {
    const fc = (await import('fast-check')).default;
    const corrupt = fc
      .tuple(fc.nat(text.length - 1), fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.'))
      .map(([i, ch]) => text.slice(0, i) + ch + text.slice(i + 1));
    await fc.assert(
      fc.asyncProperty(corrupt, async (certificate) => {
        const options = caseOptions(file, valid!);
        const outcomes = await Promise.all(BACKENDS.map(async (backend) => (await verifyCertificate(certificate, { ...options, backend })).outcome));
        expect(new Set(outcomes).size, certificate).toBe(1);
        if (certificate !== text) expect(outcomes[0]).not.toBe('valid');
      }),
      { numRuns: 300 },
    );
  });
});

describe('RVL1 vectors with every backend in Node', () => {
  const revocations = loadRevocationVectors();
  for (const backend of BACKENDS) {
    it(`${backend}: every list and certificate case gives its expected outcome`, async () => {
      const rows = await runRevocationVectors(verifier, revocations, backend);
      expect(rows.map(([name, got]) => [name, got])).toEqual(rows.map(([name, , expected]) => [name, expected]));
    });
  }
});
