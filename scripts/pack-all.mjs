#!/usr/bin/env node
/**
 * Packs every public package (`packages/*` not marked private) into one folder, as a vendor
 * installs them before they are published (root README, "Use the packages in your own project"):
 *
 *   npx -y pnpm@10.34.9 pack:all                   builds what changed, then packs into dist-packages/
 *   node scripts/pack-all.mjs [--out <dir>] [--repository <owner>/<name>]     packs what is built
 *
 * `pnpm pack` writes each tarball, rewriting `workspace:` ranges to the versions being packed, as
 * `pnpm publish` (which `changeset publish` runs) does; the file names carry no version
 * (`svc-licensing-verifier.tgz`), so the documented `npm install` line holds for every release.
 * Before packing, every manifest must have what a release needs (`manifestProblems`); after, every
 * tarball must hold the root LICENSE and no `workspace:` range. `--repository` also requires every
 * `repository.url` to name that GitHub repository (the release workflow passes its own: npm refuses
 * provenance for a package whose repository is another one). Exits non-zero on the first problem.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publicPackages } from './public-packages.mjs';
import { noticesProblems } from './third-party-notices.mjs';

export const REPOSITORY_URL = 'git+https://github.com/svc-licensing/svc-licensing.git';

export { publicPackages };

/** The tarball's file name: `@svc-licensing/verifier` → `svc-licensing-verifier.tgz`. */
export function tarballName(name) {
  return `${name.replace(/^@/, '').replace('/', '-')}.tgz`;
}

/** What keeps a package from being released as it is (empty when nothing does). */
export function manifestProblems(pkg, root, { repository } = {}) {
  const m = pkg.manifest;
  const problems = [];
  const expect = (ok, what) => ok || problems.push(`${m.name ?? pkg.folder}: ${what}`);
  expect(/^@svc-licensing\/[a-z0-9-]+$/.test(m.name ?? ''), 'name is not @svc-licensing/<name>');
  expect(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(m.version ?? ''), `version ${JSON.stringify(m.version)} is not x.y.z`);
  expect(m.license === 'MIT', 'license is not "MIT"');
  expect(m.repository?.type === 'git', 'repository.type is not "git"');
  expect(m.repository?.url === (repository ? `git+https://github.com/${repository}.git` : REPOSITORY_URL), `repository.url ${JSON.stringify(m.repository?.url)} is not ${repository ? `this repository's (${repository})` : REPOSITORY_URL}`);
  expect(m.repository?.directory === pkg.folder, `repository.directory is not "${pkg.folder}"`);
  expect(Array.isArray(m.files) && m.files.includes('dist') && m.files.includes('CHANGELOG.md'), 'files does not list dist and CHANGELOG.md');
  expect(m.publishConfig?.access === 'public', 'publishConfig.access is not "public"');
  expect(m.publishConfig?.provenance === true, 'publishConfig.provenance is not true');
  const license = join(pkg.dir, 'LICENSE');
  expect(existsSync(license) && readFileSync(license, 'utf8') === readFileSync(join(root, 'LICENSE'), 'utf8'), 'LICENSE is missing or differs from the root LICENSE');
  return problems;
}

/** The `npm install ./dist-packages/...` lines of the sh blocks in the section `heading` of a markdown file. */
export function installLines(file, heading) {
  const text = readFileSync(file, 'utf8');
  const from = text.indexOf(`\n${heading}\n`);
  if (from < 0) throw new Error(`${file} has no heading "${heading}"`);
  const next = text.indexOf('\n## ', from + heading.length + 1);
  const section = text.slice(from, next < 0 ? undefined : next);
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  return blocks.flatMap((block) => block.split('\n')).filter((line) => line.startsWith('npm install ./dist-packages/'));
}

/** The documented install lines: the verifier's (root README and verifier README) and the whole set's. */
export function documentedInstalls(root) {
  const [sdk, all, ...more] = installLines(join(root, 'README.md'), '## Use the packages in your own project');
  const [verifier, ...moreVerifier] = installLines(join(root, 'packages', 'verifier', 'README.md'), '## Install');
  if (!sdk || !all || more.length > 0) throw new Error('the root README\'s "Use the packages in your own project" should hold two npm install ./dist-packages/... lines');
  if (verifier !== sdk || moreVerifier.length > 0) throw new Error(`the verifier README's install line ${JSON.stringify(verifier)} is not the root README's ${JSON.stringify(sdk)}`);
  return { sdk, all };
}

function run(cmd, args, cwd) {
  const result = spawnSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${result.status ?? result.signal}:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** What keeps a packed tarball from being installed and used (empty when nothing does). */
export function tarballProblems(file, pkg, root) {
  const problems = [];
  const entries = run('tar', ['-tzf', file], root).split('\n');
  for (const needed of ['package/LICENSE', 'package/README.md', 'package/package.json']) {
    if (!entries.includes(needed)) problems.push(`${file}: no ${needed}`);
  }
  if (entries.includes('package/LICENSE') && run('tar', ['-xzOf', file, 'package/LICENSE'], root) !== readFileSync(join(root, 'LICENSE'), 'utf8')) {
    problems.push(`${file}: package/LICENSE differs from the root LICENSE`);
  }
  const manifest = JSON.parse(run('tar', ['-xzOf', file, 'package/package.json'], root));
  if (manifest.version !== pkg.manifest.version) problems.push(`${file}: version ${manifest.version}, not ${pkg.manifest.version}`);
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      if (String(range).startsWith('workspace:')) problems.push(`${file}: ${field}.${name} is still ${range}`);
    }
  }
  return problems;
}

/**
 * Packs every public package into `out` (its old tarballs removed first) and checks the result.
 * Returns the tarballs, one per package, in `packages/` order.
 */
export function packAll({ root, out, repository, log = (line) => process.stdout.write(`${line}\n`) }) {
  const packages = publicPackages(root);
  const problems = packages.flatMap((p) => manifestProblems(p, root, { repository }));
  problems.push(...noticesProblems(root, packages));
  if (problems.length > 0) throw new Error(`not releasable:\n  ${problems.join('\n  ')}`);

  mkdirSync(out, { recursive: true });
  for (const file of readdirSync(out)) if (file.endsWith('.tgz')) rmSync(join(out, file));
  const pnpm = ['-y', JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager];
  const filters = packages.flatMap((p) => ['--filter', p.manifest.name]);
  log(`$ pnpm ${filters.join(' ')} pack --out ${join(out, '%s.tgz')}`);
  run('npx', [...pnpm, ...filters, 'pack', '--out', join(out, '%s.tgz')], root);

  const tarballs = packages.map((p) => ({ name: p.manifest.name, version: p.manifest.version, file: join(out, tarballName(p.manifest.name)), pkg: p }));
  for (const t of tarballs) {
    if (!existsSync(t.file)) throw new Error(`pnpm pack wrote no ${t.file}`);
    problems.push(...tarballProblems(t.file, t.pkg, root));
  }
  const extra = readdirSync(out).filter((f) => f.endsWith('.tgz') && !tarballs.some((t) => t.file === join(out, f)));
  if (extra.length > 0) problems.push(`unexpected tarballs in ${out}: ${extra.join(', ')}`);
  if (problems.length > 0) throw new Error(`packed tarballs not releasable:\n  ${problems.join('\n  ')}`);
  for (const t of tarballs) log(`${t.name}@${t.version} → ${t.file}`);
  return tarballs;
}

function main(argv) {
  const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
  const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const out = resolve(option('--out') ?? join(root, 'dist-packages'));
  try {
    packAll({ root, out, repository: option('--repository') });
    const { sdk, all } = documentedInstalls(root);
    process.stdout.write(`\nCopy ${out} into your project as dist-packages/, then install there with npm (root README, "Use the packages in your own project").\n`);
    process.stdout.write(`The verifier and client SDK:\n  ${sdk}\nThe server and every library:\n  ${all}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`pack:all failed: ${error.message}\n`);
    return 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
