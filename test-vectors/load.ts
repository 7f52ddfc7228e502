// Loads the committed test-vectors/crt1.json and rvl1.json for tests (checked against the published formats).
import { readFileSync } from 'node:fs';
import type { VectorCase, VectorFile } from './cases.js';
import { checkRevocationVectorFile, checkVectorFile } from './format.mjs';
import type { RevocationVectorFile } from './rvl1-cases.js';

export const VECTORS_PATH = new URL('./crt1.json', import.meta.url);

export function loadVectors(): VectorFile {
  const checked = checkVectorFile(JSON.parse(readFileSync(VECTORS_PATH, 'utf8')));
  if (!checked.ok) throw new Error(`test-vectors/crt1.json: ${checked.problems.join('; ')}`);
  return checked.file;
}

/** The verifyCertificate options a vector case asks for. */
export function caseOptions(file: VectorFile, c: VectorCase) {
  return {
    publicKeys: file.publicKeys,
    product: c.product ?? file.product,
    fingerprint: c.fingerprint ?? file.fingerprint,
    appMajor: c.appMajor,
    now: c.now,
    highestIssuedAt: c.highestIssuedAt,
  };
}

export const REVOCATION_VECTORS_PATH = new URL('./rvl1.json', import.meta.url);

export function loadRevocationVectors(): RevocationVectorFile {
  const checked = checkRevocationVectorFile(JSON.parse(readFileSync(REVOCATION_VECTORS_PATH, 'utf8')));
  if (!checked.ok) throw new Error(`test-vectors/rvl1.json: ${checked.problems.join('; ')}`);
  return checked.file;
}
