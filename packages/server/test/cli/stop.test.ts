import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv } from '../support/cli-process.js';

/**
 * Stopping the server started with the README's first command, as a person does (Ctrl-C in a
 * terminal: `script` gives the command a real pseudo-terminal, whose line discipline turns the
 * typed ^C into SIGINT for every process of the command) and as a supervisor does (SIGTERM to the
 * process it started). pnpm passes a signal on to its script and reports a script that ends by a
 * signal or with a non-zero status as `ELIFECYCLE Command failed.`; a clean stop must say nothing
 * of the kind and end with status 0. Runs after a build (`pnpm test` builds first), so `start`'s
 * build step finds nothing to do.
 */
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const PNPM = 'pnpm@10.34.9';
const hasScript = existsSync('/usr/bin/script');

let dir = '';
/** The pnpm the README's `npx -y pnpm@10.34.9` runs (its executable in npx's cache). */
let pnpm = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-stop-'));
  pnpm = execFileSync('npx', ['-y', '-p', PNPM, 'sh', '-c', 'command -v pnpm'], { cwd: root, encoding: 'utf8' }).trim();
});
/**
 * What each test started: a command that has not ended is killed, and so is a server still holding
 * its data folder (the lock file holds its PID; checked to be that server before it is killed).
 */
const launched: { child: ChildProcess; data: string }[] = [];
afterEach(() => {
  for (const { child, data } of launched.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    const server = Number.parseInt(existsSync(join(data, 'lock')) ? readFileSync(join(data, 'lock'), 'utf8') : '', 10);
    const command = Number.isInteger(server) && existsSync(`/proc/${server}/cmdline`) ? readFileSync(`/proc/${server}/cmdline`, 'utf8') : '';
    if (command.includes('svc-licensing')) process.kill(server, 'SIGKILL');
  }
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Run {
  /** Resolves with the exit status once the command has ended, and everything it printed. */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
  /** Resolves once the server printed its `listening` line. */
  listening: Promise<void>;
  /** Types `text` into the terminal (through `script`) or, without one, does nothing. */
  type(text: string): void;
  pid: number;
}

/** Runs `command` at the repository root, in a pseudo-terminal when `terminal`, with the server on a new data folder and a free port. */
function run(command: string[], data: string, terminal: boolean): Run {
  const env = { ...process.env, ...cleanEnv, SVC_DATA_DIR: data, SVC_PORT: '0', SVC_HOST: '127.0.0.1', FORCE_COLOR: '0' };
  const quoted = command.map((part) => `'${part.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = terminal
    ? spawn('script', ['-qefc', quoted, '/dev/null'], { cwd: root, env, stdio: 'pipe' })
    : spawn(command[0]!, command.slice(1), { cwd: root, env, stdio: 'pipe' });
  let output = '';
  let onListening: () => void = () => undefined;
  const listening = new Promise<void>((resolve) => (onListening = resolve));
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.includes('"msg":"listening"')) onListening();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal, output })),
  );
  launched.push({ child, data });
  return { ended, listening, pid: child.pid!, type: (text) => void child.stdin.write(text) };
}

/** The end of the command, or a failure with its output when it has not ended 30 s after being asked to stop. */
async function stopped(run: Run): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('still running 30 s after it was asked to stop')), 30_000)));
  try {
    return await Promise.race([run.ended, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits for the server's `listening` line; fails with the output when the command ends first. */
async function untilListening(started: Run): Promise<void> {
  await Promise.race([started.listening, started.ended.then(({ code, output }) => Promise.reject(new Error(`ended (${code}) before listening:\n${output}`)))]);
}

/** The lines the server wrote about stopping, and pnpm's failure reports. */
function stopReport(output: string): { stopping: number; failures: number } {
  return { stopping: output.split('"msg":"stopping"').length - 1, failures: output.split('ELIFECYCLE').length - 1 };
}

describe.skipIf(!hasScript && process.env.CI !== 'true')('stopping the server started with the README\'s first command', { timeout: 240_000 }, () => {
  it('Ctrl-C in a terminal on `pnpm start`: the server stops cleanly, releases its data folder, pnpm reports nothing and ends with 0', async () => {
    const data = join(dir, 'ctrl-c');
    const started = run([pnpm, 'start'], data, true);
    await untilListening(started);
    started.type('\x03');
    const { code, output } = await stopped(started);
    expect(stopReport(output), output).toEqual({ stopping: 1, failures: 0 });
    expect(output, 'the server stopped on the first request, not forced by a second').not.toContain('stopping now');
    // pnpm ends with 0 when it takes the Ctrl-C before it sees the server's clean exit, and by the
    // Ctrl-C itself (130, as a shell reports any command stopped by Ctrl-C) when a loaded machine
    // lets it see the exit first: its own SIGINT listener is gone by then. Either way it says nothing.
    expect([0, 130], output).toContain(code);
    expect(existsSync(join(data, 'lock')), 'the data folder is released').toBe(false);
  });

  it('Ctrl-C in a terminal on the README\'s own `npx -y pnpm@10.34.9 start`: nothing reported, the folder released', async () => {
    const data = join(dir, 'npx');
    const started = run(['npx', '-y', PNPM, 'start'], data, true);
    await untilListening(started);
    started.type('\x03');
    const { output } = await stopped(started);
    // npm itself ends at the terminal's SIGINT (status 130, without a message): only what pnpm and the server say is ours.
    expect(stopReport(output), output).toEqual({ stopping: 1, failures: 0 });
    await expect.poll(() => existsSync(join(data, 'lock')), { timeout: 10_000 }).toBe(false);
  });

  it('SIGTERM from a supervisor to `pnpm start`: the server stops cleanly, pnpm reports nothing and ends with 0', async () => {
    const data = join(dir, 'sigterm');
    const started = run([pnpm, 'start'], data, false);
    await untilListening(started);
    process.kill(started.pid, 'SIGTERM');
    const { code, signal, output } = await stopped(started);
    expect(stopReport(output), output).toEqual({ stopping: 1, failures: 0 });
    expect({ code, signal }, output).toEqual({ code: 0, signal: null });
    expect(existsSync(join(data, 'lock'))).toBe(false);
  });
});
