import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exited, startServe } from '../support/cli-process.js';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';

const dirs: string[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function serveOnce(data: string): Promise<{ url: string; stop: () => Promise<void>; output: () => string }> {
  const { child, url } = await startServe(['--data', data], { SVC_PORT: '0', SVC_HOST: '127.0.0.1' });
  children.push(child);
  let output = '';
  child.stdout.on('data', (chunk: string) => (output += chunk));
  return {
    url,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      expect(await exited(child)).toBe(0);
    },
  };
}

describe('serve on a new data folder', () => {
  it('creates a first account, leaves its API key in initial-account.json (0600) and never logs the key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-initial-'));
    dirs.push(dir);
    const data = join(dir, 'data');

    const first = await serveOnce(data);
    const file = join(data, 'initial-account.json');
    const credentials = JSON.parse(await readFile(file, 'utf8')) as { accountId: string; apiKey: string };
    expect(credentials.apiKey).toMatch(/^svc_sk_[A-Za-z0-9]{32}$/);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const res = await fetch(`${first.url}/v1/account`, { headers: { authorization: `Bearer ${credentials.apiKey}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: credentials.accountId });
    // The operator's own account: no product or license limit, so the README walkthrough runs again.
    const usage = await fetch(`${first.url}/v1/account/usage`, { headers: { authorization: `Bearer ${credentials.apiKey}` } });
    expect(await usage.json()).toMatchObject({ plan: 'unlimited', productLimit: null, licenseLimit: null });
    expect(first.output()).not.toContain(credentials.apiKey);
    await first.stop();

    // A folder that already has an account gets no second one, and the file is left as it was.
    const before = await readFile(file, 'utf8');
    const second = await serveOnce(data);
    expect(await readFile(file, 'utf8')).toBe(before);
    const accountRes = await fetch(`${second.url}/v1/account`, { headers: { authorization: `Bearer ${credentials.apiKey}` } });
    expect(accountRes.status).toBe(200);
    expect(second.output()).not.toContain('initial account created');
    await second.stop();
  });
});
