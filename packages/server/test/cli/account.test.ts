import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { options } from '../../src/config.js';
import { cleanEnv, exited, openFolderEngine, runCli, startServe } from '../support/cli-process.js';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';

const dirs: string[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-cli-'));
  dirs.push(dir);
  return dir;
}

const clean = cleanEnv;

describe('svc-licensing account create', () => {
  it('prints one JSON object with a working API key on a fresh data folder', async () => {
    const data = join(await tempDir(), 'data');
    const result = await runCli(['account', 'create', '--name', 'Acme', '--owner-email', 'owner@acme.test', '--data', data], clean);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('generated a new master key');
    const out = JSON.parse(result.stdout) as { accountId: string; apiKey: string };
    expect(out.accountId).toMatch(/^acc_/);
    expect(out.apiKey).toMatch(/^svc_sk_[A-Za-z0-9]{32}$/);

    const { engine, store } = await openFolderEngine(data);
    try {
      expect(await engine.authenticate(out.apiKey)).toMatchObject({ accountId: out.accountId });
      const wrongLast = out.apiKey.endsWith('x') ? 'y' : 'x';
      expect(await engine.authenticate(`${out.apiKey.slice(0, -1)}${wrongLast}`)).toBeNull();
    } finally {
      await store.close();
    }
  });

  it('takes its options from SVC_* environment variables', async () => {
    const data = join(await tempDir(), 'data');
    const result = await runCli(['account', 'create'], { ...clean, SVC_DATA_DIR: data, SVC_ACCOUNT_NAME: 'Env Co', SVC_OWNER_EMAIL: 'env@co.test' });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ account: { name: 'Env Co', ownerEmail: 'env@co.test' } });
    expect(await readdir(data)).toContain('master.key');

    // A lost master.key is not silently replaced: the stored secrets need the old one.
    await rm(join(data, 'master.key'));
    const lost = await runCli(['account', 'create'], { ...clean, SVC_DATA_DIR: data, SVC_ACCOUNT_NAME: 'Two', SVC_OWNER_EMAIL: 'two@co.test' });
    expect(lost.code).toBe(1);
    expect(lost.stderr).toContain('holds data but no master.key');
  });

  it('exits non-zero with a clear message on a missing option, a database without SVC_MASTER_KEY, or an unknown command', async () => {
    const data = join(await tempDir(), 'data');
    const missing = await runCli(['account', 'create', '--name', 'Acme', '--data', data], clean);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toContain('missing --owner-email (or SVC_OWNER_EMAIL)');

    const mysql = await runCli(['account', 'create', '--name', 'A', '--owner-email', 'a@a.test'], { ...clean, SVC_DATABASE_URL: 'mysql://root@127.0.0.1:3306/test' });
    expect(mysql.code).toBe(1);
    expect(mysql.stderr).toContain('SVC_MASTER_KEY is required');

    const memory = await runCli(['account', 'create', '--name', 'A', '--owner-email', 'a@a.test', '--database', 'memory:'], clean);
    expect(memory.code).toBe(1);
    expect(memory.stderr).toContain('would keep nothing');

    const unknown = await runCli(['frobnicate'], clean);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');

    const badFlag = await runCli(['serve', '--prot', '80'], clean);
    expect(badFlag.code).toBe(1);
    expect(badFlag.stderr).toContain("'--prot'");

    // serve takes --sweep-leases (it reaches the option's own check, not the unknown-option refusal).
    const badSweep = await runCli(['serve', '--sweep-leases', 'soon', '--database', 'memory:'], clean);
    expect(badSweep.code).toBe(1);
    expect(badSweep.stderr).toContain('--sweep-leases must be a whole number of seconds');
  });
});

describe('svc-licensing help', () => {
  it('lists every option of every command with its environment variable', async () => {
    const result = await runCli(['help'], clean);
    expect(result.code).toBe(0);
    for (const spec of Object.values(options)) {
      expect(result.stdout).toContain(`--${spec.flag}`);
      expect(result.stdout).toContain(spec.env);
    }
    expect(result.stdout).toContain('SVC_MASTER_KEY');
  });
});

describe('svc-licensing serve', () => {
  it('serves the account created before it started, and stops on SIGTERM releasing the data folder', async () => {
    const data = join(await tempDir(), 'data');
    const created = await runCli(['account', 'create', '--name', 'Acme', '--owner-email', 'owner@acme.test', '--data', data], clean);
    const { accountId, apiKey } = JSON.parse(created.stdout) as { accountId: string; apiKey: string };

    const { child, url } = await startServe(['--data', data], { SVC_PORT: '0', SVC_HOST: '127.0.0.1' });
    children.push(child);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${url}/v1/account`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: accountId });
    expect((await fetch(`${url}/v1/account`, { headers: { authorization: 'Bearer svc_sk_00000000000000000000000000000000' } })).status).toBe(401);

    // The wiring of key e-mails (file transport into <data>/outbox by default) and of the webhook receiver.
    const vendor = (path: string, body: unknown) =>
      fetch(`${url}/v1${path}`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const product = (await (await vendor('/products', { name: 'Editor', keyPrefix: 'ED-' })).json()) as { id: string };
    const plan = (await (await vendor(`/products/${product.id}/plans`, { code: 'pro', kind: 'perpetual' })).json()) as { id: string };
    const licenseRes = await vendor('/licenses', { plan: plan.id, email: 'buyer@example.test', sendEmail: true });
    expect(licenseRes.status).toBe(201);
    const license = (await licenseRes.json()) as { key: string };
    const outbox = await readdir(join(data, 'outbox'));
    expect(outbox).toHaveLength(1);
    const eml = await readFile(join(data, 'outbox', outbox[0]!), 'utf8');
    expect(eml).toContain('buyer@example.test');
    expect(eml).toContain(license.key);
    const integration = (await (await vendor('/integrations', { product: product.id, provider: 'provider_b', priceMap: {}, webhookSecret: 'whsec_test' })).json()) as {
      id: string;
      webhookUrl: string;
    };
    expect(integration.webhookUrl).toBe(`${url}/v1/webhooks/provider_b/${integration.id}`);
    const unsigned = await fetch(integration.webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': '00' }, body: '{}' });
    expect(unsigned.status).toBe(401);

    // The folder is in use: a second process is refused.
    const busy = await runCli(['account', 'create', '--name', 'B', '--owner-email', 'b@b.test', '--data', data], clean);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain(`in use by process ${child.pid}`);

    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    expect(await readdir(data)).not.toContain('lock');
  });
});
