// Loads the committed test-vectors/crt1.json for tests (checked against the published format).
import { readFileSync } from 'node:fs';
import type { VectorCase, VectorFile } from './cases.js';
import { checkVectorFile } from './format.mjs';

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
