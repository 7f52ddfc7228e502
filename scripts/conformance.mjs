#!/usr/bin/env node
// Runs a crt1-test-vectors-v1 or rvl1-test-vectors-v1 file through the built verifier: one line per
// case, then "N passed, N failed". Exit 0 when all pass, 1 on any failure, 2 when the file or setup is
// unusable. Usage: pnpm conformance <file> [--backend=auto|node|webcrypto|noble]
import { readFileSync } from 'node:fs';
import { checkRevocationVectorFile, checkVectorFile } from '../test-vectors/format.mjs';
import { runRevocationVectors } from '../test-vectors/rvl1-run.mjs';

const fail = (message) => {
  console.error(`conformance: ${message}`);
  process.exit(2);
};

const args = process.argv.slice(2);
const path = args.find((a) => !a.startsWith('--'));
const backend = (args.find((a) => a.startsWith('--backend=')) ?? '--backend=auto').slice('--backend='.length);
if (path === undefined) fail('usage: pnpm conformance <vector-file.json> [--backend=auto|node|webcrypto|noble]');

let doc;
try {
  doc = JSON.parse(readFileSync(path, 'utf8'));
} catch (error) {
  fail(`cannot read ${path} as JSON: ${error.message}`);
}
// An RVL1 file says so in its format; anything else is read as a CRT1 file (and its problems named as such).
const revocationFile = typeof doc === 'object' && doc !== null && doc.format === 'rvl1-test-vectors-v1';
const checked = revocationFile ? checkRevocationVectorFile(doc) : checkVectorFile(doc);
if (!checked.ok) fail(`${path} is not a ${revocationFile ? 'rvl1' : 'crt1'}-test-vectors-v1 file:\n  - ${checked.problems.join('\n  - ')}`);
const file = checked.file;

let verifier, certFormat;
try {
  verifier = await import('../packages/verifier/dist/index.js');
  certFormat = await import('../packages/cert-format/dist/index.js');
} catch (error) {
  fail(`the verifier is not built (${error.message}); run pnpm build first`);
}

let passed = 0;
let failed = 0;
const report = (ok, name, expected, got) => {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'PASS' : 'FAIL'}  ${name}  expected=${expected}  got=${got}`);
};

const backendProblem = (error) => error instanceof TypeError && /backend/.test(error.message);
if (revocationFile) {
  let rows;
  try {
    rows = await runRevocationVectors(verifier, file, backend);
  } catch (error) {
    if (backendProblem(error)) fail(error.message);
    throw error;
  }
  for (const [name, got, expected] of rows) report(got === expected, name, expected, got);
}

for (const c of revocationFile ? [] : file.cases) {
  let got;
  try {
    const result = await verifier.verifyCertificate(c.certificate, {
      publicKeys: file.publicKeys,
      product: c.product ?? file.product,
      fingerprint: c.fingerprint ?? file.fingerprint,
      appMajor: c.appMajor,
      now: c.now,
      highestIssuedAt: c.highestIssuedAt ?? null,
      backend,
    });
    got = result.outcome;
  } catch (error) {
    if (backendProblem(error)) fail(error.message);
    got = `threw ${error?.name ?? 'error'}: ${error?.message ?? String(error)}`;
  }
  report(got === c.expected, c.name, c.expected, got);
}

for (const [i, k] of (revocationFile ? [] : file.keyNormalization ?? []).entries()) {
  const normalized = certFormat.normalizeLicenseKey(k.input);
  const sha256 = certFormat.hashLicenseKey(k.input);
  const ok = normalized === k.normalized && sha256 === k.sha256;
  report(ok, `key normalization #${i + 1} ${JSON.stringify(k.input)}`, `${k.normalized} ${k.sha256}`, `${normalized} ${sha256}`);
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
