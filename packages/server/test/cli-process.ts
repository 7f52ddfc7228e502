/** Starts a TypeScript entry of this package in a child Node process, loading sibling packages from source. */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const tsconfig = fileURLToPath(new URL('./cli-source.tsconfig.json', import.meta.url));
export const cliEntry = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

/** Spawns `node --import tsx <entry> ...args` with `env` added to this process's environment. */
export function spawnTs(entry: string, args: readonly string[], env: Record<string, string | undefined> = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    env: { ...process.env, ...env, TSX_TSCONFIG_PATH: tsconfig },
    stdio: 'pipe',
  });
}

/** Calls `onLine` for every complete line the child writes to stdout. */
export function onLines(child: ChildProcessWithoutNullStreams, onLine: (line: string) => void): void {
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    for (const line of lines) onLine(line);
  });
}

/** Resolves with the exit code (or signal) once the child has exited. */
export function exited(child: ChildProcessWithoutNullStreams): Promise<number | NodeJS.Signals> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  if (child.signalCode !== null) return Promise.resolve(child.signalCode);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal!)));
}

/** Runs the CLI to completion and returns its exit code and output. */
export async function runCli(args: readonly string[], env: Record<string, string | undefined> = {}): Promise<{ code: number | NodeJS.Signals; stdout: string; stderr: string }> {
  const child = spawnTs(cliEntry, args, env);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await exited(child);
  return { code, stdout, stderr };
}
