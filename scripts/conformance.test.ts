import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Runs the real runner (`pnpm conformance` = node scripts/conformance.mjs) on the built verifier;
// `pnpm test` builds first.
const root = new URL('..', import.meta.url).pathname;
const run = (...args: string[]) => spawnSync(process.execPath, ['scripts/conformance.mjs', ...args], { cwd: root, encoding: 'utf8' });
const vectors = JSON.parse(readFileSync(join(root, 'test-vectors/crt1.json'), 'utf8'));
const lineCount = vectors.cases.length + vectors.keyNormalization.length;
const revocations = JSON.parse(readFileSync(join(root, 'test-vectors/rvl1.json'), 'utf8'));
const revocationLines = revocations.lists.length + revocations.certificates.length;

describe('pnpm conformance <file>', () => {
  it('prints one line per case and "N passed, 0 failed", exiting 0 on the published vectors', () => {
    const result = run('test-vectors/crt1.json');
    const lines = result.stdout.trim().split('\n');
    expect(result.status).toBe(0);
    expect(lines).toHaveLength(lineCount + 1);
    expect(lines[0]).toBe('PASS  valid  expected=valid  got=valid');
    expect(lines.at(-1)).toBe(`${lineCount} passed, 0 failed`);
  });

  for (const backend of ['node', 'webcrypto', 'noble']) {
    it(`passes every case with --backend=${backend}`, () => {
      const result = run('test-vectors/crt1.json', `--backend=${backend}`);
      expect(result.status).toBe(0);
      expect(result.stdout.trim().split('\n').at(-1)).toBe(`${lineCount} passed, 0 failed`);
    });
  }

  it('reports a case whose expected outcome differs and exits non-zero', () => {
    const dir = mkdtempSync(join(tmpdir(), 'conformance-'));
    const file = join(dir, 'wrong.json');
    const changed = { ...vectors, cases: [{ ...vectors.cases[0], expected: 'expired' }, vectors.cases[1]], keyNormalization: [] };
    writeFileSync(file, JSON.stringify(changed));
    const result = run(file);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('FAIL  valid  expected=expired  got=valid');
    expect(result.stdout.trim().split('\n').at(-1)).toBe('1 passed, 1 failed');
  });

  it('refuses a file that does not fit the format with a clear message', () => {
    const dir = mkdtempSync(join(tmpdir(), 'conformance-'));
    const file = join(dir, 'other.json');
    writeFileSync(file, JSON.stringify({ format: 'jwt-vectors', cases: [] }));
    const result = run(file);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('is not a crt1-test-vectors-v1 file');
    expect(result.stderr).toContain('"format" must be "crt1-test-vectors-v1"');
    expect(run(join(dir, 'missing.json')).stderr).toContain('cannot read');
  });

  it('runs an RVL1 vector file (lists, then certificates checked against their list) with every backend', () => {
    const result = run('test-vectors/rvl1.json');
    const lines = result.stdout.trim().split('\n');
    expect(result.status).toBe(0);
    expect(lines).toHaveLength(revocationLines + 1);
    expect(lines[0]).toBe('PASS  list: valid list  expected=valid  got=valid');
    expect(lines).toContain('PASS  certificate: listed license  expected=revoked  got=revoked');
    expect(lines.at(-1)).toBe(`${revocationLines} passed, 0 failed`);
    for (const backend of ['node', 'webcrypto', 'noble']) {
      expect(run('test-vectors/rvl1.json', `--backend=${backend}`).stdout.trim().split('\n').at(-1), backend).toBe(`${revocationLines} passed, 0 failed`);
    }
  });

  it('reports an RVL1 case whose expected outcome differs, and names the problems of a broken RVL1 file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'conformance-'));
    const wrong = join(dir, 'wrong-rvl1.json');
    const certificate = revocations.certificates.find((c: { name: string }) => c.name === 'listed license');
    writeFileSync(wrong, JSON.stringify({ ...revocations, lists: [{ ...revocations.lists[0], heldSeq: 99 }], certificates: [{ ...certificate, expected: 'valid' }] }));
    const result = run(wrong);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('FAIL  list: valid list  expected=valid  got=older_seq');
    expect(result.stdout).toContain('FAIL  certificate: listed license  expected=valid  got=revoked');
    const broken = join(dir, 'broken-rvl1.json');
    writeFileSync(broken, JSON.stringify({ ...revocations, certificates: [] }));
    const refused = run(broken);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('is not a rvl1-test-vectors-v1 file');
    expect(refused.stderr).toContain('"certificates" must be a non-empty array');
  });
});
