import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookSender, generateWebhookSecret, parseNotifyAllowance, webhookBody } from '../../src/notifications/index.js';
import type { WebhookSender } from '../../src/notifications/index.js';

// docs/notifications.md shows vendors a receiver that verifies notifications with the
// standardwebhooks package: this runs that code as written, and our sender posts to it.

const docs = fileURLToPath(new URL('../../../../docs/notifications.md', import.meta.url));
const serverModules = fileURLToPath(new URL('../../node_modules/', import.meta.url));
const secret = generateWebhookSecret();
let dir: string;
let child: ChildProcess;
let port: number;
let stdout = '';
let sender: WebhookSender;

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port: free } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return free;
}

beforeAll(async () => {
  const markdown = await readFile(docs, 'utf8');
  const example = /```js\n([\s\S]*?)```/.exec(markdown)?.[1];
  if (!example) throw new Error('no js example in docs/notifications.md');
  dir = await mkdtemp(join(tmpdir(), 'svc-notify-docs-'));
  await mkdir(join(dir, 'node_modules'));
  await symlink(join(serverModules, 'standardwebhooks'), join(dir, 'node_modules', 'standardwebhooks'));
  await writeFile(join(dir, 'receive.mjs'), example);
  port = await freePort();
  child = spawn(process.execPath, ['receive.mjs'], { cwd: dir, env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) }, stdio: 'pipe' });
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const allowed = parseNotifyAllowance(['127.0.0.1']);
  if (!allowed.ok) throw new Error(allowed.message);
  sender = createWebhookSender({ allowance: allowed.allowance });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const probe = await sender.send({ url: `http://127.0.0.1:${port}/`, id: 'msg_probe', body: '{}', secrets: [generateWebhookSecret()] });
    if (probe.status !== null) break;
    if (Date.now() > deadline) throw new Error('the example receiver did not start');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});
afterAll(async () => {
  sender?.close();
  child?.kill();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the receiver example of docs/notifications.md', () => {
  const body = webhookBody({ type: 'license.created', timestamp: new Date(), data: { id: 'lic_docs', event: { id: 'evt_1' } } });
  const send = (id: string, text: string, secrets: string[]) => sender.send({ url: `http://127.0.0.1:${port}/hooks`, id, body: text, secrets });

  it('accepts a notification signed by the service and handles each webhook-id once', async () => {
    expect(await send('msg_doc1', body, [secret])).toMatchObject({ ok: true, status: 204 });
    expect(await send('msg_doc1', body, [secret])).toMatchObject({ ok: true, status: 204 });
    expect(stdout.split('\n').filter((line) => line.startsWith('license.created'))).toEqual([
      'license.created {"id":"lic_docs","event":{"id":"evt_1"}}',
    ]);
  });

  it('accepts both signatures of a rotation overlap with either secret configured', async () => {
    expect(await send('msg_doc2', body, [generateWebhookSecret(), secret])).toMatchObject({ ok: true, status: 204 });
  });

  it('refuses another secret with 400', async () => {
    expect(await send('msg_doc3', body, [generateWebhookSecret()])).toMatchObject({ ok: false, status: 400, responseBody: 'invalid signature' });
  });
});
