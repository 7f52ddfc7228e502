#!/usr/bin/env node
/**
 * Before publishing: `pnpm pack` every public package (`packages/*` not marked private), install all
 * the tarballs together with plain npm into an empty project outside the workspace, then run there
 * what a user would run first: the verifier README's first example (`## Verify a certificate
 * offline`), an import and a require of every package, and the server's bin (`svc-licensing help`,
 * then `serve` on a new data folder until it is listening, stopped with SIGTERM).
 * Run after `pnpm build` (CI: `.ci/run`); exits non-zero on the first failure.
 *
 *   node scripts/pack-check.mjs [--keep]     (--keep leaves the temporary project for a look)
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const keep = process.argv.includes('--keep');
const work = mkdtempSync(join(tmpdir(), 'svc-pack-check-'));
const tarballs = join(work, 'tarballs');
const project = join(work, 'project');
mkdirSync(tarballs);
mkdirSync(project);

function run(cmd, args, cwd, options = {}) {
  process.stdout.write(`$ ${[cmd, ...args].join(' ')}   (in ${cwd})\n`);
  const result = spawnSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
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

/** `svc-licensing serve` from the installed tarball: listening within 60 s, exit 0 on SIGTERM. */
function serveUntilListening() {
  process.stdout.write('$ svc-licensing serve --port 0 --data ./data\n');
  const child = spawn(join(project, 'node_modules', '.bin', 'svc-licensing'), ['serve', '--port', '0', '--data', './data'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
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
  const pnpm = ['-y', JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager];
  const packages = readdirSync(join(root, 'packages'))
    .map((dir) => ({ dir: join(root, 'packages', dir), manifest: JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) }))
    .filter((p) => !p.manifest.private);
  for (const p of packages) run('npx', [...pnpm, 'pack', '--pack-destination', tarballs], p.dir);
  const files = readdirSync(tarballs).filter((f) => f.endsWith('.tgz')).map((f) => join(tarballs, f));
  if (files.length !== packages.length) throw new Error(`expected ${packages.length} tarballs, found ${files.length}`);

  // An empty project with plain npm: no workspace, no pnpm, only the registry for third-party packages.
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'pack-check', private: true, type: 'module' }, null, 2)}\n`);
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...files], project, { env: { ...process.env, npm_config_workspaces: 'false' } });

  // The verifier README's first example, as a user would paste it into a file.
  const example = firstTsBlock(join(root, 'packages', 'verifier', 'README.md'), '## Verify a certificate offline');
  writeFileSync(join(project, 'example.mjs'), example);
  const out = run(process.execPath, ['example.mjs'], project);
  process.stdout.write(out);
  if (!/^valid /m.test(out)) throw new Error(`the verifier README example printed ${JSON.stringify(out)}, not "valid ..."`);

  // Every package loads from its tarball in both module systems.
  for (const p of packages) {
    run(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(p.manifest.name)}); if (Object.keys(m).length === 0) process.exit(1);`], project);
    run(process.execPath, ['-e', `const m = require(${JSON.stringify(p.manifest.name)}); if (Object.keys(m).length === 0) process.exit(1);`], project);
  }
  const help = execFileSync(join(project, 'node_modules', '.bin', 'svc-licensing'), ['help'], { cwd: project, encoding: 'utf8' });
  if (!help.includes('serve')) throw new Error('svc-licensing help did not list serve');

  await serveUntilListening();

  process.stdout.write(`pack check: ${packages.length} tarballs installed together with npm in ${project}; the verifier README example ran\n`);
} catch (error) {
  process.stderr.write(`pack check failed: ${error.message}\n`);
  process.exitCode = 1;
} finally {
  if (keep) process.stdout.write(`kept ${work}\n`);
  else rmSync(work, { recursive: true, force: true });
}
