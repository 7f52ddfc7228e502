import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkStructure, type Offense, type Rule } from './structure.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * The files that broke a rule when the check was added (issue 24), each with the rule it breaks.
 * This list may only shrink: the test fails on an offense that is not listed (fix the file: do not
 * add it here), and on a listed entry that no longer offends (delete the entry in the change that
 * fixed it, so the list stays true). A listed file that moves takes its entry along.
 */
const KNOWN_OFFENDERS: readonly { file: string; rule: Rule }[] = [];

const key = (o: { file: string; rule: Rule }) => `${o.rule} ${o.file}`;
let checked: Offense[] | undefined;
const offenses = () => (checked ??= checkStructure(root));

describe('the structure of packages/*/src', () => {
  it('has no file over 300 lines, no function over 120, no import cycle and no _internal/ file importing a public module, apart from the known offenders', () => {
    const found = offenses();
    const known = new Set(KNOWN_OFFENDERS.map(key));
    const added = found.filter((o) => !known.has(key(o))).map((o) => `${key(o)}: ${o.detail}`);
    expect(added, 'new offenses: fix them (the list in scripts/structure.test.ts may only shrink)').toEqual([]);
  });

  it('lists only offenders that still offend, once each, so the list can only shrink', () => {
    const found = new Set(offenses().map(key));
    const keys = KNOWN_OFFENDERS.map(key);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i), 'listed twice').toEqual([]);
    expect(keys.filter((k) => !found.has(k)), 'fixed: delete these entries from KNOWN_OFFENDERS in scripts/structure.test.ts').toEqual([]);
  });
});

describe('the structure check', () => {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });
  /** A repository of its own with `files` (paths under packages/) and what the check finds in it. */
  const check = (files: Record<string, string>): Pick<Offense, 'file' | 'rule'>[] => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-structure-'));
    made.push(dir);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, 'packages', path)), { recursive: true });
      writeFileSync(join(dir, 'packages', path), text);
    }
    return checkStructure(dir).map(({ file, rule }) => ({ file: file.replace(/^packages\//, ''), rule }));
  };
  const lines = (n: number, line = 'export const x = 1;') => Array.from({ length: n }, (_, i) => line.replace('x', `x${i}`)).join('\n') + '\n';
  /** A function of `n` lines in the form `head` gives it (the body pads it out). */
  const fn = (n: number, head: string, tail = '}') => `${head}\n${'  void 0;\n'.repeat(n - 2)}${tail}\n`;

  it('finds a file over 300 lines, in any package and folder, .ts and .tsx; 300 lines pass', () => {
    expect(
      check({
        'a/src/exact.ts': lines(300),
        'a/src/deep/long.ts': lines(301),
        'b/src/page.tsx': lines(301),
        'b/src/types.d.ts': lines(400),
        'b/test/long.test.ts': lines(400),
      }),
    ).toEqual([
      { file: 'a/src/deep/long.ts', rule: 'file-lines' },
      { file: 'b/src/page.tsx', rule: 'file-lines' },
    ]);
  });

  it('finds a function over 120 lines in every form (declaration, arrow, expression, method, constructor, accessor); 120 lines pass', () => {
    expect(
      check({
        'a/src/ok.ts': fn(120, 'export function fits() {') + fn(120, 'export const arrow = () => {', '};'),
        'a/src/declaration.ts': fn(121, 'export function long() {'),
        'a/src/arrow.ts': fn(121, 'export const long = async () => {', '};'),
        'a/src/expression.ts': fn(121, 'export const long = function () {', '};'),
        'a/src/method.ts': `export class A {\n${fn(121, '  run() {', '  }')}}\n`,
        'a/src/constructor.ts': `export class A {\n${fn(121, '  constructor() {', '  }')}}\n`,
        'a/src/accessor.ts': `export class A {\n${fn(121, '  get value() {', '  return 1; }')}}\n`,
        'a/src/nested.ts': `export function outer() {\n  return {\n${fn(121, '    inner() {', '    },')}  };\n}\n`,
      }),
    ).toEqual([
      { file: 'a/src/accessor.ts', rule: 'function-lines' },
      { file: 'a/src/arrow.ts', rule: 'function-lines' },
      { file: 'a/src/constructor.ts', rule: 'function-lines' },
      { file: 'a/src/declaration.ts', rule: 'function-lines' },
      { file: 'a/src/expression.ts', rule: 'function-lines' },
      { file: 'a/src/method.ts', rule: 'function-lines' },
      { file: 'a/src/nested.ts', rule: 'function-lines' },
    ]);
  });

  it('finds every file on an import cycle (type-only imports, re-exports and dynamic imports count, across packages too), not the files that only lead into one', () => {
    expect(
      check({
        'a/src/one.ts': "import { two } from './two.js';\nexport const one = () => two;\n",
        'a/src/two.ts': "import type { Three } from './three.js';\nexport const two = 2;\nexport type T = Three;\n",
        'a/src/three.ts': "export * from './one.js';\nexport type Three = 3;\n",
        'a/src/leaf.ts': "import { one } from './one.js';\nexport const leaf = one;\n",
        'a/src/lazy.ts': "export const load = () => import('./lazy-back.js');\n",
        'a/src/lazy-back.ts': "import { load } from './lazy.js';\nexport const back = load;\n",
        'a/src/index.ts': "export { leaf } from './leaf.js';\n",
        'b/src/index.ts': "import { leaf } from '@svc-licensing/a';\nexport const b = leaf;\n",
        'a/src/uses-b.ts': "import { e } from '@svc-licensing/b/sub';\nexport const c = () => e;\n",
        'a/src/acyclic.ts': "import { b } from '@svc-licensing/b';\nexport const d = b;\n",
        'b/src/sub.ts': "import { c } from '@svc-licensing/a/uses-b';\nexport const e = c;\n",
        'b/src/entry.ts': "import { e } from './sub.js';\nexport const f = e;\n",
      }),
    ).toEqual([
      { file: 'a/src/lazy-back.ts', rule: 'import-cycle' },
      { file: 'a/src/lazy.ts', rule: 'import-cycle' },
      { file: 'a/src/one.ts', rule: 'import-cycle' },
      { file: 'a/src/three.ts', rule: 'import-cycle' },
      { file: 'a/src/two.ts', rule: 'import-cycle' },
      { file: 'a/src/uses-b.ts', rule: 'import-cycle' },
      { file: 'b/src/sub.ts', rule: 'import-cycle' },
    ]);
  });

  it('finds an _internal/ file importing a public module of its own package (types too, at any depth); _internal/ to _internal/, public to _internal/ and other packages pass', () => {
    expect(
      check({
        'a/src/index.ts': "export { x } from './_internal/x.js';\n",
        'a/src/errors.ts': 'export class AError extends Error {}\n',
        'a/src/records.ts': 'export interface R { id: string }\n',
        'a/src/_internal/x.ts': "import { y } from './y.js';\nexport const x = y;\n",
        'a/src/_internal/y.ts': "import { b } from '@svc-licensing/b';\nexport const y = b;\n",
        'a/src/_internal/value.ts': "import { AError } from '../errors.js';\nexport const e = new AError();\n",
        'a/src/_internal/types.ts': "import type { R } from '../records.js';\nexport type Id = R['id'];\n",
        'a/src/_internal/self.ts': "import { x } from '@svc-licensing/a';\nexport const z = x;\n",
        'a/src/feature/_internal/up.ts': "import type { R } from '../../records.js';\nexport type S = R;\n",
        'a/src/feature/_internal/floor.ts': "import { x } from '../../_internal/x.js';\nexport const w = x;\n",
        'b/src/index.ts': 'export const b = 1;\n',
      }),
    ).toEqual([
      { file: 'a/src/_internal/self.ts', rule: 'internal-imports-public' },
      { file: 'a/src/_internal/types.ts', rule: 'internal-imports-public' },
      { file: 'a/src/_internal/value.ts', rule: 'internal-imports-public' },
      { file: 'a/src/feature/_internal/up.ts', rule: 'internal-imports-public' },
    ]);
  });
});
