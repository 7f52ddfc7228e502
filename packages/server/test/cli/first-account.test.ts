import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, cliEntry, exited, onLines, runCli, spawnTs } from '../support/cli-process.js';

const dirs: string[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function newDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-first-account-'));
  dirs.push(dir);
  return join(dir, 'data');
}

/** Starts serve, waits for `listening`, and returns its URL and what it wrote to stderr by then. */
async function serve(args: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcessWithoutNullStreams; url: string; stderr: () => string }> {
  const child = spawnTs(cliEntry, ['serve', '--port', '0', ...args], { ...cleanEnv, ...env });
  children.push(child);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    onLines(child, (line) => line.includes('"listening"') && resolve((JSON.parse(line) as { url: string }).url));
    void exited(child).then((code) => reject(new Error(`serve exited (${code}): ${stderr}`)));
  });
  return { child, url, stderr: () => stderr };
}

async function firstAccount(url: string, data: string): Promise<{ name: string; ownerEmail: string }> {
  const { apiKey } = JSON.parse(await readFile(join(data, 'initial-account.json'), 'utf8')) as { apiKey: string };
  return (await fetch(`${url}/v1/account`, { headers: { authorization: `Bearer ${apiKey}` } })).json() as Promise<{ name: string; ownerEmail: string }>;
}

describe('the first account of a new data folder', () => {
  it('takes its name and owner address from --account-name and --owner-email, or SVC_ACCOUNT_NAME and SVC_OWNER_EMAIL', async () => {
    const data = await newDataDir();
    const flags = await serve(['--data', data, '--account-name', 'Acme Tools', '--owner-email', 'Ada@Acme.example']);
    expect(await firstAccount(flags.url, data)).toMatchObject({ name: 'Acme Tools', ownerEmail: 'ada@acme.example' });
    expect(flags.stderr()).not.toContain('the first account');
    flags.child.kill('SIGTERM');
    expect(await exited(flags.child)).toBe(0);

    const other = await newDataDir();
    const fromEnv = await serve(['--data', other], { SVC_ACCOUNT_NAME: 'Grace Software', SVC_OWNER_EMAIL: 'grace@grace.example' });
    expect(await firstAccount(fromEnv.url, other)).toMatchObject({ name: 'Grace Software', ownerEmail: 'grace@grace.example' });
    fromEnv.child.kill('SIGTERM');
    expect(await exited(fromEnv.child)).toBe(0);
  });

  it('keeps the placeholders without them, and says at start what customers would see and where to change it', async () => {
    const data = await newDataDir();
    const started = await serve(['--data', data]);
    expect(await firstAccount(started.url, data)).toMatchObject({ name: 'Default', ownerEmail: 'owner@example.com' });
    const warning = started.stderr().split('\n').find((line) => line.startsWith('warning: the first account'));
    expect(warning).toContain('is named "Default" and has the owner address owner@example.com');
    expect(warning).toContain("the dashboard's overview");
    expect(warning).toContain('--account-name');
    started.child.kill('SIGTERM');
    expect(await exited(started.child)).toBe(0);
  });

  it('refuses an owner address that is not one before writing anything', async () => {
    const data = await newDataDir();
    const result = await runCli(['serve', '--port', '0', '--data', data, '--owner-email', 'not-an-address'], cleanEnv);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--owner-email must be an e-mail address');
    expect(existsSync(data)).toBe(false);
  });
});
