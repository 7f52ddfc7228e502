import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';

it('the README example runs: it activates a machine and the certificate verifies', async () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const code = /## Example\s+```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(code).toContain('createLicenseEngine');
  const file = join(mkdtempSync(join(tmpdir(), 'license-engine-readme-')), 'example.ts');
  writeFileSync(file, code!);
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  try {
    await import(/* @vite-ignore */ file);
    expect(log.mock.calls).toEqual([[true, 'pro', 'Ada', 1]]);
  } finally {
    log.mockRestore();
  }
});
