#!/usr/bin/env node
/**
 * Builds the workspace packages (`packages/*` with a `build` script) whose inputs changed since
 * their last build, and the packages that depend on them; `pnpm start` runs it so an unchanged
 * checkout starts at once, while a fresh clone still builds everything in the same one command.
 *
 *   node scripts/build-changed.mjs            build what changed (and its dependents)
 *   node scripts/build-changed.mjs --all      build every package (`pnpm build`)
 *   node scripts/build-changed.mjs --dry-run  print what would be built, build nothing
 *
 * A package's inputs: every file of its folder that git does not ignore (outside a git checkout:
 * every file but `node_modules` and `dist`), the root `package.json`, `pnpm-lock.yaml` and
 * `tsconfig.base.json`, and the inputs of the workspace packages it depends on. After a
 * successful build their SHA-256 is kept in `node_modules/.cache/svc-build/<package>.sha256`;
 * a package is also rebuilt when a file its `package.json` points at (`main`, `module`, `types`,
 * `bin`, `exports`) is missing.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT_INPUTS = ['package.json', 'pnpm-lock.yaml', 'tsconfig.base.json'];

/** Every workspace package under `packages/` that has a build script. */
export function workspacePackages(root) {
  const dir = join(root, 'packages');
  const found = [];
  for (const name of existsSync(dir) ? readdirSync(dir).sort() : []) {
    const file = join(dir, name, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    if (!manifest.scripts?.build) continue;
    found.push({ name: manifest.name, dir: join(dir, name), manifest });
  }
  const names = new Set(found.map((p) => p.name));
  for (const p of found) {
    const all = { ...p.manifest.dependencies, ...p.manifest.devDependencies, ...p.manifest.peerDependencies };
    p.deps = Object.keys(all).filter((d) => names.has(d) && d !== p.name);
  }
  return found;
}

function walk(dir, base, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, base, out);
    else if (entry.isFile()) out.push(relative(base, path));
  }
  return out;
}

/** The package's input files, relative to the root, sorted. */
function inputFiles(root, dir) {
  const git = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', relative(root, dir) || '.'], {
    cwd: root,
    encoding: 'utf8',
  });
  const files =
    git.status === 0 ? git.stdout.split('\0').filter(Boolean) : walk(dir, root, []);
  return files.filter((f) => existsSync(join(root, f)) && statSync(join(root, f)).isFile()).sort();
}

/** Files the manifest says the build produces. */
function outputs(manifest) {
  const paths = [];
  const collect = (value) => {
    if (typeof value === 'string') paths.push(value);
    else if (value && typeof value === 'object') for (const v of Object.values(value)) collect(v);
  };
  collect(manifest.main);
  collect(manifest.module);
  collect(manifest.types);
  collect(manifest.bin);
  collect(manifest.exports);
  return paths.filter((p) => !p.includes('*') && p !== './package.json');
}

const stampFile = (root, name) => join(root, 'node_modules', '.cache', 'svc-build', `${name.replace(/[/@]/g, '_')}.sha256`);

/**
 * Each package with its inputs' hash and whether it needs a build, dependencies first.
 * @param {string} root the workspace root
 */
export function plan(root) {
  const packages = workspacePackages(root);
  const byName = new Map(packages.map((p) => [p.name, p]));
  const rootHash = createHash('sha256');
  for (const f of ROOT_INPUTS) if (existsSync(join(root, f))) rootHash.update(f).update('\0').update(readFileSync(join(root, f)));
  const rootDigest = rootHash.digest('hex');
  const order = [];
  const seen = new Set();
  const visit = (p) => {
    if (seen.has(p.name)) return;
    seen.add(p.name);
    for (const d of p.deps) visit(byName.get(d));
    const hash = createHash('sha256').update(rootDigest);
    for (const d of p.deps) hash.update(`dep ${d} ${byName.get(d).hash}\n`);
    for (const f of inputFiles(root, p.dir)) hash.update(`${f.split(sep).join('/')}\0`).update(readFileSync(join(root, f)));
    p.hash = hash.digest('hex');
    const stamp = existsSync(stampFile(root, p.name)) ? readFileSync(stampFile(root, p.name), 'utf8').trim() : null;
    const missing = outputs(p.manifest).filter((o) => !existsSync(join(p.dir, o)));
    p.stale = stamp !== p.hash || missing.length > 0;
    order.push(p);
  };
  for (const p of packages) visit(p);
  return order;
}

/** Records that `packages` were built from their current inputs. */
export function writeStamps(root, packages) {
  for (const p of packages) {
    mkdirSync(join(root, 'node_modules', '.cache', 'svc-build'), { recursive: true });
    writeFileSync(stampFile(root, p.name), `${p.hash}\n`);
  }
}

function pnpm(args, root) {
  // Under `pnpm <script>`, npm_execpath is that pnpm: run the same one; else the pinned one through npx.
  const execPath = process.env.npm_execpath;
  const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager ?? 'pnpm@10';
  const [cmd, pre] =
    execPath && /pnpm/.test(execPath) && /\.(c?js|mjs)$/.test(execPath) ? [process.execPath, [execPath]] : ['npx', ['-y', pinned]];
  const result = spawnSync(cmd, [...pre, ...args], { cwd: root, stdio: 'inherit' });
  if (result.error) process.stderr.write(`build: cannot run ${cmd}: ${result.error.message}\n`);
  return result;
}

function main(argv) {
  const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
  const all = argv.includes('--all');
  const packages = plan(root);
  const todo = packages.filter((p) => all || p.stale);
  if (argv.includes('--dry-run')) {
    for (const p of todo) process.stdout.write(`${p.name}\n`);
    return 0;
  }
  if (todo.length === 0) {
    process.stdout.write(`build: ${packages.length} packages up to date\n`);
    return 0;
  }
  process.stdout.write(`build: ${todo.map((p) => p.name).join(', ')}\n`);
  const result = pnpm(['-r', ...todo.flatMap((p) => ['--filter', p.name]), 'build'], root);
  if (result.status !== 0) return result.status ?? 1;
  writeStamps(root, plan(root).filter((p) => todo.some((t) => t.name === p.name)));
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
