// Child processes of the HTTP benchmark: the built CLI (`packages/server/bin/svc-licensing.cjs`) and the
// hello-JSON reference server, each started on a free port and stopped with SIGTERM.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const cliPath = fileURLToPath(new URL('../../packages/server/bin/svc-licensing.cjs', import.meta.url));
const helloPath = fileURLToPath(new URL('./hello.ts', import.meta.url));
const baselinePath = fileURLToPath(new URL('./baseline.ts', import.meta.url));

const builtCli = fileURLToPath(new URL('../../packages/server/dist/cli.js', import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(builtCli)) throw new Error(`${builtCli} is missing: run \`pnpm build\` first`);
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
  /** The child's "listening" line, parsed (a script's own fields beside `url`, e.g. an API key). */
  listening: Record<string, unknown>;
  stop(): Promise<void>;
}

/** Runs a CLI command to completion (`cli`: another checkout's bin); resolves with its stdout, rejects on a non-zero exit. */
export function runCli(args: string[], env: Record<string, string>, cli = cliPath): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`svc-licensing ${args[0]} exited ${code}: ${err}`))));
  });
}

let logFiles = 0;

/**
 * Starts a child whose stdout (one log line per request) goes to a file, not a pipe: reading a
 * pipe in this process would charge the log's consumer to the load generator, which shares the
 * machine's cores with the server. The file is deleted when the child stops.
 */
function spawnLogged(args: string[], env: NodeJS.ProcessEnv, what: string): Promise<Running> {
  const logPath = join(tmpdir(), `svc-bench-${process.pid}-${logFiles++}.log`);
  const fd = openSync(logPath, 'w');
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', fd, 'pipe'] });
  closeSync(fd);
  return new Promise((resolve, reject) => {
    let err = '';
    let done = false;
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
    const poll = setInterval(() => {
      const line = readFileSync(logPath, 'utf8').split('\n').find((l) => l.includes('"listening"'));
      if (!line) return;
      clearInterval(poll);
      done = true;
      const listening = JSON.parse(line) as { url: string };
      resolve({
        url: listening.url,
        pid: child.pid!,
        listening,
        stop: () =>
          new Promise<void>((res) => {
            // BENCH_KEEP_LOGS=1 keeps the server's request log (its path is printed) to look into failures.
            const finish = () =>
              process.env['BENCH_KEEP_LOGS'] ? (process.stderr.write(`server log kept: ${logPath}\n`), res()) : rm(logPath, { force: true }).then(() => res());
            if (child.exitCode !== null) return void finish();
            child.once('exit', finish);
            child.kill('SIGTERM');
          }),
      });
    }, 25);
    child.on('exit', (code) => {
      if (done) return;
      clearInterval(poll);
      void rm(logPath, { force: true });
      reject(new Error(`${what} exited ${code} before listening: ${err}`));
    });
  });
}

/** `svc-licensing serve --port 0` with the given store flags (`cli`: another checkout's bin, for A/B runs). */
export function startServer(storeArgs: string[], env: Record<string, string>, cli = cliPath): Promise<Running> {
  // BENCH_SERVER_NODE_ARGS: extra Node flags for the servers, e.g. `--cpu-prof` to profile a run.
  const nodeArgs = process.env['BENCH_SERVER_NODE_ARGS']?.split(' ').filter(Boolean) ?? [];
  return spawnLogged([...nodeArgs, cli, 'serve', '--port', '0', '--host', '127.0.0.1', ...storeArgs], { ...process.env, ...clean, ...unlimited, ...env }, 'svc-licensing serve');
}

/**
 * A server script of the benchmarks run with tsx (e.g. notify/api-server.ts), with the thread pool
 * sized as the bin sizes the server's (cores - 1); it prints a JSON line with `"listening"` and `url`.
 */
export function startScript(path: string, args: string[], env: Record<string, string>, what: string): Promise<Running> {
  const pool = String(Math.max(1, availableParallelism() - 1));
  return spawnLogged(['--import', 'tsx', path, ...args], { ...process.env, UV_THREADPOOL_SIZE: process.env['UV_THREADPOOL_SIZE'] ?? pool, ...env }, what);
}

/** The hello-JSON h3 reference server (same Node listener as the service). */
export function startHello(): Promise<Running> {
  return spawnLogged(['--import', 'tsx', helloPath], process.env, 'hello server');
}

/**
 * The parse + sign baseline (h3 route, JSON body, Ed25519 in libuv's pool), with the thread pool
 * sized as the bin sizes the server's (cores - 1), so both sign on the same number of threads.
 */
export function startBaseline(): Promise<Running> {
  const pool = String(Math.max(1, availableParallelism() - 1));
  return spawnLogged(['--import', 'tsx', baselinePath], { ...process.env, UV_THREADPOOL_SIZE: process.env['UV_THREADPOOL_SIZE'] ?? pool }, 'baseline server');
}
