import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { providerAApiUrls } from '../../src/provider-a-config.js';
import { cleanEnv, cliEntry, exited, onLines, openFolderEngine, spawnTs } from '../support/cli-process.js';

const dirs: string[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('provider_a API addresses', () => {
  it('take one address per environment, each falling back to --provider-a-api-url, which still serves both', () => {
    expect(providerAApiUrls({}, {})).toEqual({});
    expect(providerAApiUrls({ providerAApiUrl: 'https://api.pa.example' }, {})).toEqual({ live: 'https://api.pa.example', sandbox: 'https://api.pa.example' });
    expect(providerAApiUrls({ providerAApiUrlLive: 'https://api.pa.example' }, {})).toEqual({ live: 'https://api.pa.example' });
    expect(
      providerAApiUrls({}, { SVC_PROVIDER_A_API_URL: 'https://api.pa.example', SVC_PROVIDER_A_API_URL_SANDBOX: 'https://sandbox-api.pa.example' }),
    ).toEqual({ live: 'https://api.pa.example', sandbox: 'https://sandbox-api.pa.example' });
    expect(() => providerAApiUrls({ providerAApiUrlSandbox: 'sandbox-api.pa.example' }, {})).toThrow(ConfigError);
    expect(() => providerAApiUrls({ providerAApiUrlSandbox: 'sandbox-api.pa.example' }, {})).toThrow('--provider-a-api-url-sandbox must be an http(s) URL');
  });

  it('serve warns at start about integrations whose API key it cannot use, naming the option for their environment', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-pa-urls-'));
    dirs.push(dir);
    const data = join(dir, 'data');
    const { engine, store } = await openFolderEngine(data);
    const { account } = await engine.createAccount({ name: 'Acme', ownerEmail: 'owner@acme.test' });
    const product = await engine.createProduct(account.id, { name: 'Editor', keyPrefix: 'EDIT' });
    await engine.createIntegration(account.id, { provider: 'provider_a', product: product.id, environment: 'live', apiKey: 'pdl_live_key' });
    await engine.createIntegration(account.id, { provider: 'provider_a', product: product.id, environment: 'sandbox', apiKey: 'pdl_sandbox_key' });
    await store.close();

    const child = spawnTs(cliEntry, ['serve', '--data', data, '--port', '0', '--provider-a-api-url-live', 'http://127.0.0.1:9/api'], cleanEnv);
    children.push(child);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    await new Promise<void>((resolve, reject) => {
      onLines(child, (line) => line.includes('"listening"') && resolve());
      void exited(child).then((code) => reject(new Error(`serve exited (${code}): ${stderr}`)));
    });
    const warnings = stderr.split('\n').filter((line) => line.startsWith('warning: ') && line.includes('provider_a'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('1 provider_a sandbox integration has an API key this server cannot use');
    expect(warnings[0]).toContain('--provider-a-api-url-sandbox');
    expect(stderr).not.toContain('pdl_sandbox_key');
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  });
});
