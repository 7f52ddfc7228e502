import { access, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../support/cli-process.js';

let dir = '';
let blocker: Server | null = null;
afterAll(async () => {
  await new Promise((resolve) => (blocker ? blocker.close(resolve) : resolve(undefined)));
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('on a port already in use, serve names the port and how to pick another, and writes nothing to the data folder', async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-port-'));
  blocker = createServer();
  await new Promise<void>((resolve) => blocker!.listen(0, '127.0.0.1', resolve));
  const { port } = blocker.address() as AddressInfo;
  const data = join(dir, 'data');

  const { code, stdout, stderr } = await runCli(['serve', '--data', data], { ...cleanEnv, SVC_PORT: String(port), SVC_HOST: '127.0.0.1' });
  expect(code).toBe(1);
  expect(stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
  expect(stderr).toContain('--port <port>');
  expect(stderr).toContain('SVC_PORT=<port>');
  expect(stderr).not.toContain('    at '); // a message, not a stack trace
  expect(stdout).toBe('');
  // No folder, no master key, no initial account: the first run on a free port starts from scratch.
  await expect(access(data)).rejects.toThrow(/ENOENT/);
}, 60_000);
