#!/usr/bin/env node
/**
 * THIRD-PARTY-NOTICES.md of each public package whose built files include other projects' code
 * (the verifier's browser build bundles @noble/*, the server ships the dashboard bundled with
 * Preact): their licenses ask for their notice in every copy, and a minified bundle keeps none.
 * Which packages a build includes is read from its source maps (`dist/**\/*.map`: every source
 * under `node_modules/<name>/`), their license text from that package's LICENSE file.
 *
 *   node scripts/third-party-notices.mjs           (re)write the files, after `pnpm build`
 *   node scripts/third-party-notices.mjs --check   exit 1 when a file is missing or out of date
 *
 * `pack:all` and `check:pack` run the check, so a new bundled dependency cannot ship without its notice.
 */
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publicPackages } from './public-packages.mjs';

export const NOTICES = 'THIRD-PARTY-NOTICES.md';

function mapFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return mapFiles(path);
    return entry.name.endsWith('.map') ? [path] : [];
  });
}

/** The third-party packages a package's build includes: name → its folder in the repository. */
export function bundledPackages(root, pkgDir) {
  const found = new Map();
  for (const map of mapFiles(join(pkgDir, 'dist'))) {
    for (const source of JSON.parse(readFileSync(map, 'utf8')).sources ?? []) {
      const first = source.indexOf('node_modules/');
      if (first < 0) continue;
      const last = source.lastIndexOf('node_modules/') + 'node_modules/'.length;
      const parts = source.slice(last).split('/');
      const name = parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
      if (name.startsWith('@svc-licensing/') || found.has(name)) continue;
      // pnpm keeps every package under the root's node_modules/.pnpm; a map copied into another
      // package (the server's dist/web) no longer resolves relative to where it lies.
      const inRoot = join(root, source.slice(first, last), name);
      const relative = resolve(dirname(map), source.slice(0, last), name);
      found.set(name, existsSync(join(inRoot, 'package.json')) ? inRoot : relative);
    }
  }
  return new Map([...found].sort(([a], [b]) => a.localeCompare(b)));
}

function licenseText(name, dir) {
  const file = existsSync(dir) && readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.(md|txt))?$/i.test(f));
  if (!file) throw new Error(`${name} (${dir}) has no LICENSE file to copy its notice from`);
  return readFileSync(join(dir, file), 'utf8').trim();
}

/** The notices file's text for a package, or null when its build includes no other project's code. */
export function noticesText(root, pkg) {
  const bundled = bundledPackages(root, pkg.dir);
  if (bundled.size === 0) return null;
  const sections = [...bundled].map(([name, dir]) => {
    const license = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).license ?? 'see below';
    return `## ${name} (${license})\n\n\`\`\`text\n${licenseText(name, dir)}\n\`\`\`\n`;
  });
  return `# Third-party notices\n\n${pkg.manifest.name} is MIT-licensed (LICENSE). Its built files (\`dist/\`) include code from\nthe packages below, under their own licenses.\n\n${sections.join('\n')}`;
}

/** Packages whose notices file is missing, stale or superfluous (empty when all are right). */
export function noticesProblems(root, packages) {
  return packages.flatMap((pkg) => {
    const want = noticesText(root, pkg);
    const file = join(pkg.dir, NOTICES);
    const have = existsSync(file) ? readFileSync(file, 'utf8') : null;
    if (want === have) return [];
    const what = want === null ? `has a ${NOTICES} but its build includes no other project's code` : have === null ? `has no ${NOTICES}` : `${NOTICES} is out of date`;
    return [`${pkg.manifest.name}: ${what} (run node scripts/third-party-notices.mjs after pnpm build)`];
  });
}

async function main(argv) {
  const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
  const packages = publicPackages(root);
  if (argv.includes('--check')) {
    const problems = noticesProblems(root, packages);
    for (const problem of problems) process.stderr.write(`${problem}\n`);
    return problems.length === 0 ? 0 : 1;
  }
  for (const pkg of packages) {
    const text = noticesText(root, pkg);
    const file = join(pkg.dir, NOTICES);
    if (text === null) rmSync(file, { force: true });
    else writeFileSync(file, text);
    process.stdout.write(`${pkg.manifest.name}: ${text === null ? 'no bundled third-party code' : [...bundledPackages(root, pkg.dir).keys()].join(', ')}\n`);
  }
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => (process.exitCode = code));
}
