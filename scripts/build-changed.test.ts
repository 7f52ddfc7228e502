import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without declarations
import { plan, writeStamps } from './build-changed.mjs';

interface Planned {
  name: string;
  stale: boolean;
}
const stale = (root: string) => (plan(root) as Planned[]).filter((p) => p.stale).map((p) => p.name);

const root = mkdtempSync(join(tmpdir(), 'svc-build-changed-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function pkg(dir: string, manifest: Record<string, unknown>, source: string) {
  mkdirSync(join(root, 'packages', dir, 'src'), { recursive: true });
  writeFileSync(join(root, 'packages', dir, 'package.json'), JSON.stringify({ scripts: { build: 'tsup' }, ...manifest }));
  writeFileSync(join(root, 'packages', dir, 'src', 'index.ts'), source);
}
/** What a build leaves: the outputs the manifest names, and the stamps. */
function built() {
  for (const dir of ['a', 'b']) {
    mkdirSync(join(root, 'packages', dir, 'dist'), { recursive: true });
    writeFileSync(join(root, 'packages', dir, 'dist', 'index.js'), '');
  }
  writeStamps(root, plan(root));
}

it('pnpm start builds only what changed since the last build, and what depends on it', () => {
  writeFileSync(join(root, 'package.json'), '{"private":true}');
  pkg('a', { name: '@x/a', main: './dist/index.js' }, 'export const a = 1;');
  pkg('b', { name: '@x/b', main: './dist/index.js', dependencies: { '@x/a': 'workspace:^' } }, 'export const b = 2;');
  mkdirSync(join(root, 'packages', 'docs-only'), { recursive: true });
  writeFileSync(join(root, 'packages', 'docs-only', 'package.json'), '{"name":"@x/docs"}'); // no build script: never built

  expect(stale(root)).toEqual(['@x/a', '@x/b']); // a fresh clone builds everything, dependencies first
  built();
  expect(stale(root)).toEqual([]); // an unchanged checkout builds nothing

  writeFileSync(join(root, 'packages', 'b', 'src', 'index.ts'), 'export const b = 3;');
  expect(stale(root)).toEqual(['@x/b']);
  built();
  writeFileSync(join(root, 'packages', 'a', 'src', 'extra.ts'), 'export {};'); // a new file counts too
  expect(stale(root)).toEqual(['@x/a', '@x/b']); // b is built against a
  built();
  writeFileSync(join(root, 'package.json'), '{"private":true,"x":1}'); // root config: everything
  expect(stale(root)).toEqual(['@x/a', '@x/b']);
  built();

  rmSync(join(root, 'packages', 'a', 'dist'), { recursive: true }); // outputs deleted: rebuilt though unchanged
  expect(stale(root)).toEqual(['@x/a']);
  built();
  writeFileSync(join(root, 'packages', 'a', 'dist', 'index.js'), 'changed output'); // outputs are not inputs
  expect(stale(root)).toEqual([]);
});
