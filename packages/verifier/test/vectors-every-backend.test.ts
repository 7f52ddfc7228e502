import { describe, expect, it } from 'vitest';
import { availableBackends, selectedBackend, verifyCertificate, type BackendName } from '@svc-licensing/verifier';
import { caseOptions, loadVectors } from '../../../test-vectors/load.js';

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
