// Child processes of the HTTP benchmark: the built CLI (`packages/server/dist/cli.js`) and the
// hello-JSON reference server, each started on a free port and stopped with SIGTERM.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const cliPath = fileURLToPath(new URL('../../packages/server/dist/cli.js', import.meta.url));
const helloPath = fileURLToPath(new URL('./hello.ts', import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: run \`pnpm build\` first`);
}

/** Variables of the server's own options, emptied so the caller's shell cannot change a run. */
const clean = Object.fromEntries(
  ['PORT', 'HOST', 'DATA_DIR', 'DATABASE_URL', 'PUBLIC_URL', 'SMTP_URL', 'OUTBOX_DIR'].map((n) => [`SVC_${n}`, '']),
);

/** Limits far above any benchmark rate, so the run measures the service, not the 429 path. */
export const unlimited = { SVC_RATE_LIMIT_VENDOR: '100000000', SVC_RATE_LIMIT_CLIENT_KEY: '100000000', SVC_RATE_LIMIT_CLIENT_IP: '100000000' };

export interface Running {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Runs a CLI command to completion; resolves with its stdout, rejects on a non-zero exit. */
export function runCli(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { env: { ...process.env, ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`svc-licensing ${args[0]} exited ${code}: ${err}`))));
  });
}

function started(child: ChildProcess, what: string): Promise<Running> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    let err = '';
    let done = false;
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
    // The server logs every request to stdout: keep reading (and dropping) it, or it would block.
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      if (done) return;
      buffer += chunk;
      for (const line of buffer.split('\n').slice(0, -1)) {
        if (!line.includes('"listening"')) continue;
        done = true;
        const url = (JSON.parse(line) as { url: string }).url;
        resolve({
          url,
          pid: child.pid!,
          stop: () =>
            new Promise<void>((res) => {
              if (child.exitCode !== null) return res();
              child.once('exit', () => res());
              child.kill('SIGTERM');
            }),
        });
      }
      buffer = buffer.slice(buffer.lastIndexOf('\n') + 1);
    });
    child.on('exit', (code) => {
      if (!done) reject(new Error(`${what} exited ${code} before listening: ${err}`));
    });
  });
}

/** `svc-licensing serve --port 0` with the given store flags. */
export function startServer(storeArgs: string[], env: Record<string, string>): Promise<Running> {
  // BENCH_SERVER_NODE_ARGS: extra Node flags for the servers, e.g. `--cpu-prof` to profile a run.
  const nodeArgs = process.env['BENCH_SERVER_NODE_ARGS']?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, cliPath, 'serve', '--port', '0', '--host', '127.0.0.1', ...storeArgs], {
    env: { ...process.env, ...clean, ...unlimited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return started(child, 'svc-licensing serve');
}

/** The hello-JSON h3 reference server (same Node listener as the service). */
export function startHello(): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', helloPath], { stdio: ['ignore', 'pipe', 'pipe'] });
  return started(child, 'hello server');
}
