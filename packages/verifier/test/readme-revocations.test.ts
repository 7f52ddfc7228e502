import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';

it('the README\'s RVL1 example runs: the published list verifies and the listed license\'s certificate is revoked', async () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const code = /## Revocation lists \(RVL1\)[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(code).toContain('verifyRevocationList');
  const file = join(mkdtempSync(join(tmpdir(), 'verifier-readme-')), 'example.ts');
  writeFileSync(file, code!);
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  try {
    await import(/* @vite-ignore */ file);
    expect(log.mock.calls).toEqual([[5, 2, 3], ['revoked']]);
  } finally {
    log.mockRestore();
  }
});
