import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type Licensed, type SdkServer } from '../support/sdk-server.js';

// Runs examples/node-cli as a user would (a separate Node process on the BUILT package, `pnpm build`
// first) against the real reference server.
const CLI = fileURLToPath(new URL('../../examples/node-cli/cli.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../../packages/verifier/dist/node.js', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'svc-example-cli-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

interface Run {
  code: number;
  out: any;
  stderr: string;
}

function run(server: SdkServer, licensed: Licensed, args: string[], machine = 'cli-machine-1'): Promise<Run> {
  const env = {
    PATH: process.env.PATH ?? '',
    SVC_BASE_URL: server.baseUrl,
    SVC_PRODUCT: licensed.product,
    SVC_PUBLIC_KEYS: JSON.stringify(licensed.publicKeys),
    SVC_LICENSE_FILE: join(folder, machine, 'license.json'),
    SVC_MACHINE_ID: machine,
  };
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, timeout: 20_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, out: stdout.trim() === '' ? null : JSON.parse(stdout.trim()), stderr });
    });
  });
}

describe('examples/node-cli against the reference server', () => {
  it('activates, checks and deactivates, keeping the license in its file', async () => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run pnpm build first`);
    // The CLI runs on the real clock, so the server does too.
    const server = await startServer({}, Date.now());
    const licensed = await server.license();

    const activated = await run(server, licensed, ['activate', licensed.key, '--name', 'Build box']);
    expect(activated, activated.stderr).toMatchObject({ code: 0, out: { activated: expect.stringMatching(/^act_/), valid: true, licensee: 'Ada Buyer', plan: 'pro' } });
    const file = join(folder, 'cli-machine-1', 'license.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ format: 'svc-license-state-v1', key: licensed.key });
    const detail = await server.api('GET', `/licenses/${licensed.licenseId}`);
    expect(detail.activations).toEqual([expect.objectContaining({ name: 'Build box', platform: process.platform })]);

    expect(await run(server, licensed, ['check'])).toMatchObject({
      code: 0,
      out: { valid: true, reason: null, offline: true, refreshError: null, licensee: 'Ada Buyer', entitlements: ['export', 'sync'] },
    });

    expect(await run(server, licensed, ['deactivate'])).toMatchObject({ code: 0, out: { released: true } });
    expect(await run(server, licensed, ['check'])).toMatchObject({ code: 1, out: { valid: false, reason: 'no_certificate' } });
    expect(await run(server, licensed, ['activate', 'NOT-A-KEY'])).toMatchObject({ code: 1, out: { error: { code: 'invalid_request' } } });
    expect(await run(server, licensed, ['frobnicate'])).toMatchObject({ code: 2 });
  });

  it('an air-gapped machine writes its request to a file and imports the certificate file the vendor returns', async () => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run pnpm build first`);
    const server = await startServer({}, Date.now());
    const licensed = await server.license();
    const requestFile = join(folder, 'request.txt');
    const made = await run(server, licensed, ['request', requestFile, '--key', licensed.key, '--name', 'Lab PC'], 'cli-airgap');
    expect(made, made.stderr).toMatchObject({ code: 0, out: { request: requestFile } });
    const answer = await server.api('POST', '/activations/offline', { request: readFileSync(requestFile, 'utf8') });
    const certificateFile = join(folder, 'license.crt');
    writeFileSync(certificateFile, `${answer.certificate}\n`);
    await server.stop();
    expect(await run(server, licensed, ['import', certificateFile, '--key', licensed.key], 'cli-airgap')).toMatchObject({ code: 0, out: { imported: true, valid: true, licensee: 'Ada Buyer' } });
    expect(await run(server, licensed, ['check'], 'cli-airgap')).toMatchObject({ code: 0, out: { valid: true, offline: true } });
  });
});
