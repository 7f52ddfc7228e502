import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';

it('the README\'s RVL1 example runs: it signs a list, reads it back and finds the freed machine', async () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const code = /## Revocation lists \(RVL1\)[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(code).toContain('signRevocationList');
  const file = join(mkdtempSync(join(tmpdir(), 'cert-format-readme-')), 'example.ts');
  writeFileSync(file, code!);
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  try {
    await import(/* @vite-ignore */ file);
    expect(log.mock.calls).toEqual([[8, 1, 1], ['activation']]);
  } finally {
    log.mockRestore();
  }
});
