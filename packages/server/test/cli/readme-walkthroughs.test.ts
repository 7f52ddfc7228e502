import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { exited, startServe } from '../support/cli-process.js';

/**
 * The first hour of a new user: the shell blocks of the top-level README and of examples/node-cli
 * run exactly as written (the top-level one verifies with the BUILT verifier: `pnpm test` builds
 * first), against `svc-licensing serve` on a new data folder and a free port, which the READMEs
 * tell the user to pass on with SVC_PORT and SVC_DATA_DIR.
 */
const root = fileURLToPath(new URL('../../../../', import.meta.url));

/** The `n`-th (from 0) ```sh block after the heading `heading` of a markdown file. */
async function shellBlock(file: string, heading: string, n = 0): Promise<string> {
  const text = await readFile(join(root, file), 'utf8');
  const from = text.indexOf(`\n${heading}\n`);
  if (from < 0) throw new Error(`${file} has no heading ${heading}`);
  const blocks = [...text.slice(from).matchAll(/^```sh\n([\s\S]*?)^```$/gm)];
  if (!blocks[n]) throw new Error(`${file}: no sh block ${n} after ${heading}`);
  return blocks[n][1]!;
}

function bash(script: string, env: Record<string, string>, cwd = root): Promise<{ code: number | NodeJS.Signals; stdout: string; stderr: string }> {
  const child = spawn('bash', ['-c', script], { cwd, env: { ...process.env, ...env }, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return exited(child).then((code) => ({ code, stdout, stderr }));
}

let dir = '';
const children: ChildProcessWithoutNullStreams[] = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

function requireBuild(): void {
  const built = join(root, 'packages', 'verifier', 'dist', 'index.js');
  if (!existsSync(built)) throw new Error(`${built} is missing: run pnpm build first (pnpm test does)`);
}

async function serve(data: string): Promise<{ child: ChildProcessWithoutNullStreams; port: string }> {
  const started = await startServe(['--data', data, '--port', '0']);
  children.push(started.child);
  return { child: started.child, port: new URL(started.url).port };
}

describe('README walkthroughs, as written', () => {
  it('the top-level curl walkthrough runs to "offline check: valid", runs again on the same account leaving one product and one plan, and stops loudly at the first failing step', async () => {
    requireBuild();
    dir ||= await mkdtemp(join(tmpdir(), 'svc-readme-'));
    const data = join(dir, 'top');
    const { child, port } = await serve(data);
    const walkthrough = await shellBlock('README.md', '## Try it with curl');
    const env = { SVC_PORT: port, SVC_DATA_DIR: data };

    for (let run = 0; run < 2; run++) {
      const result = await bash(walkthrough, env);
      expect(result, result.stderr).toMatchObject({ code: 0 });
      expect(result.stdout).toMatch(/^license key: ACME-[0-9A-Z]{5}-[0-9A-Z]{5}-[0-9A-Z]{5}-[0-9A-Z]{5}$/m);
      expect(result.stdout).toContain('offline check: valid Jo');
    }
    // Run twice, the account holds one "Acme Editor" with one plan, and both runs' licenses are of it
    // (the dashboard's New license then has nothing to choose between).
    const { apiKey } = JSON.parse(await readFile(join(data, 'initial-account.json'), 'utf8')) as { apiKey: string };
    const vendor = async (path: string) => (await (await fetch(`http://127.0.0.1:${port}/v1${path}`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as { data: any[] };
    const products = (await vendor('/products')).data;
    expect(products.map((p: { name: string }) => p.name)).toEqual(['Acme Editor']);
    expect((await vendor(`/products/${products[0].id}/plans`)).data.map((p: { code: string }) => p.code)).toEqual(['pro']);
    const licenses = (await vendor('/licenses')).data;
    expect(licenses).toHaveLength(2);
    expect(licenses.every((l: { product: string }) => l.product === products[0].id)).toBe(true);

    // A wrong API key: the first call's answer is shown, and nothing after it runs.
    const wrong = join(dir, 'wrong');
    await mkdir(wrong);
    await writeFile(join(wrong, 'initial-account.json'), JSON.stringify({ apiKey: `svc_sk_${'x'.repeat(32)}` }));
    const refused = await bash(walkthrough, { ...env, SVC_DATA_DIR: wrong });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('"code":"unauthorized"');
    expect(refused.stdout).toBe('');

    // No server: curl's own error, and again nothing after it.
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    const down = await bash(walkthrough, env);
    expect(down.code).not.toBe(0);
    expect(down.stderr).toMatch(/curl: \(7\)/);
    expect(down.stdout).toBe('');
  }, 120_000);

  it('examples/node-cli: its three blocks, in order, with the initial account: activate, check, deactivate, then offline request and import', async () => {
    requireBuild();
    dir ||= await mkdtemp(join(tmpdir(), 'svc-readme-'));
    const data = join(dir, 'example');
    const { port } = await serve(data);
    const setup = await shellBlock('examples/node-cli/README.md', '## Run it against a local server', 0);
    const use = await shellBlock('examples/node-cli/README.md', '## Run it against a local server', 1);
    const offline = await shellBlock('examples/node-cli/README.md', '## Run it against a local server', 2);
    expect(`${setup}${use}${offline}`).not.toMatch(/\bjq\b/);
    // "At the repository root": a folder whose examples/ is the repository's, so the files the
    // offline block writes (request.txt, license.crt) land in the test's folder.
    const workdir = join(dir, 'work');
    await mkdir(workdir);
    await symlink(join(root, 'examples'), join(workdir, 'examples'));
    const home = join(dir, 'home');
    await mkdir(home);
    const env: Record<string, string> = { SVC_PORT: port, SVC_DATA_DIR: data, HOME: home };
    if (!existsSync('/etc/machine-id') && !existsSync('/var/lib/dbus/machine-id')) env.SVC_MACHINE_ID = 'ci-machine'; // documented override

    // One shell, as the user types them; errexit only so that a failing step fails the test here.
    const result = await bash(`set -eo pipefail\n${setup}${use}${offline}`, env, workdir);
    expect(result, result.stderr).toMatchObject({ code: 0 });
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({ activated: expect.stringMatching(/^act_/), valid: true, licensee: 'Ada', plan: 'pro' }),
      expect.objectContaining({ valid: true, reason: null, offline: true }),
      { released: true },
      expect.objectContaining({ request: 'request.txt' }),
      expect.objectContaining({ imported: true, valid: true, licensee: 'Ada' }),
    ]);
    expect(existsSync(join(home, '.acme-editor', 'license.json'))).toBe(true); // the README's default place

    // The setup block again: it finds its product and plan by name, so the account keeps one of each.
    const again = await bash(`set -eo pipefail\n${setup}echo "$PRODUCT $PLAN"`, env, workdir);
    expect(again, again.stderr).toMatchObject({ code: 0 });
    const apiKey = (JSON.parse(await readFile(join(data, 'initial-account.json'), 'utf8')) as { apiKey: string }).apiKey;
    const listed = (await (await fetch(`http://127.0.0.1:${port}/v1/products`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as { data: Array<{ id: string; name: string }> };
    expect(listed.data.filter((p) => p.name === 'Acme Editor')).toHaveLength(1);
    expect(again.stdout.trim().split(' ')[0]).toBe(listed.data[0]!.id);
  }, 120_000);
});
