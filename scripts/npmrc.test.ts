import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;

it('npm and npx in the repository warn about no project config (pnpm settings live in pnpm-workspace.yaml)', () => {
  // An empty user config and no npm_config_* variables, so only the repository's own files can warn.
  const userconfig = join(mkdtempSync(join(tmpdir(), 'svc-npmrc-')), 'npmrc');
  writeFileSync(userconfig, '');
  const inherited = Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_config_'));
  const env = { ...Object.fromEntries(inherited), npm_config_userconfig: userconfig };
  for (const [cmd, args] of [['npm', ['config', 'get', 'registry']], ['npx', ['--yes', '--version']]] as const) {
    const result = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', env });
    expect(result.status).toBe(0);
    expect(result.stderr).not.toMatch(/Unknown \w+ config/);
  }
});
