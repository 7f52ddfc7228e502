#!/usr/bin/env node
/**
 * Before publishing: pack every public package as `pack:all` does (scripts/pack-all.mjs: manifests
 * fit for release, LICENSE and third-party notices in every tarball, no `workspace:` range left),
 * then install them the documented way in empty projects outside the workspace, with plain npm and
 * a registry that answers nothing for `@svc-licensing/*` (they are unpublished), and run there what
 * a vendor would run first:
 * - the verifier: the install line of the root and verifier READMEs (extracted, so they cannot
 *   drift), the verifier README's first example (`## Verify a certificate offline`), an import and a
 *   require; then `npm ci` from the lockfile that install wrote, and the example again;
 * - everything: the root README's line for all tarballs, an import and a require of every package,
 *   the server's bin (`svc-licensing help`, then `serve` on a new data folder until it listens,
 *   stopped with SIGTERM).
 * Run after `pnpm build` (CI: `.ci/run`); exits non-zero on the first failure.
 *
 *   node scripts/pack-check.mjs [--keep] [--repository <owner>/<name>]
 *     --keep          leaves the temporary projects for a look
 *     --repository    every package's repository.url must name this GitHub repository (release workflow)
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { documentedInstalls, packAll } from './pack-all.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const keep = argv.includes('--keep');
const repository = argv.includes('--repository') ? argv[argv.indexOf('--repository') + 1] : undefined;
const work = mkdtempSync(join(tmpdir(), 'svc-pack-check-'));

// A vendor's shell: none of the npm_* variables pnpm sets for the script running this check.
const vendorEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));

function run(cmd, args, cwd, options = {}) {
  process.stdout.write(`$ ${[cmd, ...args].join(' ')}   (in ${cwd})\n`);
  const result = spawnSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: vendorEnv, ...options });
  if (result.status !== 0) {
    process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    throw new Error(`${cmd} ${args.join(' ')} exited ${result.status ?? result.signal}`);
  }
  return result.stdout;
}

/** The first ```ts block after `heading` in a markdown file. */
function firstTsBlock(file, heading) {
  const text = readFileSync(file, 'utf8');
  const from = text.indexOf(`\n${heading}\n`);
  if (from < 0) throw new Error(`${file} has no heading "${heading}"`);
  const block = /^```ts\n([\s\S]*?)^```$/m.exec(text.slice(from));
  if (!block) throw new Error(`${file}: no ts block after "${heading}"`);
  return block[1];
}

/**
 * An empty npm project holding the packed tarballs as ./dist-packages, where `@svc-licensing`
 * packages can only come from them: the scope's registry is a closed port, so any attempt to
 * fetch one from a registry fails the install (ECONNREFUSED) instead of passing unnoticed.
 */
function vendorProject(name, tarballs) {
  const project = join(work, name);
  mkdirSync(project);
  cpSync(tarballs, join(project, 'dist-packages'), { recursive: true });
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: `pack-check-${name}`, private: true, type: 'module' }, null, 2)}\n`);
  writeFileSync(join(project, '.npmrc'), '@svc-licensing:registry=http://127.0.0.1:9/\nfund=false\naudit=false\n');
  return project;
}

/** Runs a documented install line as written, in a shell, as the vendor pastes it. */
function install(line, project) {
  run('sh', ['-c', line], project);
  const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
  for (const [name, spec] of Object.entries(manifest.dependencies ?? {})) {
    if (!spec.startsWith('file:dist-packages/')) throw new Error(`${line} recorded ${name}@${spec}, not a file:dist-packages/ tarball`);
  }
}

/** The verifier README's first example, as a user pastes it into a file: it must print "valid ...". */
function runExample(project) {
  const example = firstTsBlock(join(root, 'packages', 'verifier', 'README.md'), '## Verify a certificate offline');
  writeFileSync(join(project, 'example.mjs'), example);
  const out = run(process.execPath, ['example.mjs'], project);
  process.stdout.write(out);
  if (!/^valid /m.test(out)) throw new Error(`the verifier README example printed ${JSON.stringify(out)}, not "valid ..."`);
}

/** The package loads in both module systems and exports something. */
function loads(name, project) {
  run(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(name)}); if (Object.keys(m).length === 0) process.exit(1);`], project);
  run(process.execPath, ['-e', `const m = require(${JSON.stringify(name)}); if (Object.keys(m).length === 0) process.exit(1);`], project);
}

/** `svc-licensing serve` from the installed tarball: listening within 60 s, exit 0 on SIGTERM. */
function serveUntilListening(project) {
  process.stdout.write('$ svc-licensing serve --port 0 --data ./data\n');
  const child = spawn(join(project, 'node_modules', '.bin', 'svc-licensing'), ['serve', '--port', '0', '--data', './data'], { cwd: project, env: vendorEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve was not listening after 60 s:\n${output}`));
    }, 60_000);
    const onData = (chunk) => {
      output += chunk;
      if (output.includes('"msg":"listening"') && child.signalCode === null && !child.killed) child.kill('SIGTERM');
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0 && output.includes('"msg":"listening"')) resolve();
      else reject(new Error(`serve exited ${code ?? signal}:\n${output}`));
    });
  });
}

try {
  const { sdk, all } = documentedInstalls(root);
  const folder = join(work, 'dist-packages');
  const tarballs = packAll({ root, out: folder, repository });
  const documented = (line) => new Set(line.split(/\s+/).filter((arg) => arg.startsWith('./dist-packages/')));
  const missing = tarballs.filter((t) => !documented(all).has(`./dist-packages/${t.file.slice(folder.length + 1)}`));
  if (missing.length > 0) throw new Error(`the root README's line for all packages leaves out ${missing.map((t) => t.name).join(', ')}`);
  for (const arg of new Set([...documented(sdk), ...documented(all)])) {
    if (!tarballs.some((t) => `./dist-packages/${t.file.slice(folder.length + 1)}` === arg)) throw new Error(`the READMEs install ${arg}, which pack:all does not write`);
  }

  // The verifier alone, as an application embeds it; then again from the lockfile, as the vendor's CI does.
  const app = vendorProject('app', folder);
  install(sdk, app);
  runExample(app);
  loads('@svc-licensing/verifier', app);
  rmSync(join(app, 'node_modules'), { recursive: true });
  run('npm', ['ci'], app);
  runExample(app);

  // Every package, as a vendor running the server installs them.
  const server = vendorProject('server', folder);
  install(all, server);
  for (const t of tarballs) loads(t.name, server);
  const help = execFileSync(join(server, 'node_modules', '.bin', 'svc-licensing'), ['help'], { cwd: server, env: vendorEnv, encoding: 'utf8' });
  if (!help.includes('serve')) throw new Error('svc-licensing help did not list serve');
  await serveUntilListening(server);

  process.stdout.write(`pack check: ${tarballs.length} tarballs, each with LICENSE; the READMEs' npm install lines ran in ${work} with no registry for @svc-licensing; the verifier README example ran\n`);
} catch (error) {
  process.stderr.write(`pack check failed: ${error.message}\n`);
  process.exitCode = 1;
} finally {
  if (keep) process.stdout.write(`kept ${work}\n`);
  else rmSync(work, { recursive: true, force: true });
}
