/** Starts a TypeScript entry of this package in a child Node process, loading sibling packages from source. */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createLicenseEngine, createSecretBox } from '@svc-licensing/license-engine';
import type { LicenseEngine, Store } from '@svc-licensing/license-engine';
import { MASTER_KEY_ENV, options } from '../../src/config.js';
import { resolveMasterKey } from '../../src/master-key.js';
import { openEmbeddedStore } from '../../src/stores/embedded/index.js';

const tsconfig = fileURLToPath(new URL('./cli-source.tsconfig.json', import.meta.url));
export const cliEntry = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

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

/** Empties every variable the CLI reads (a developer's shell may set them), so each test states its own. */
export const cleanEnv: Record<string, string> = Object.fromEntries(
  [...Object.values(options).map((option) => option.env), MASTER_KEY_ENV].map((name) => [name, '']),
);

/** Starts `svc-licensing serve ...args`; resolves once it prints its `listening` line. */
export async function startServe(args: readonly string[], env: Record<string, string> = {}): Promise<{ child: ChildProcessWithoutNullStreams; url: string }> {
  const child = spawnTs(cliEntry, ['serve', ...args], { ...cleanEnv, ...env });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const listening = new Promise<string>((resolve) =>
    onLines(child, (line) => {
      if (!line.includes('"listening"')) return;
      const parsed = JSON.parse(line) as { msg?: string; url?: string };
      if (parsed.msg === 'listening' && parsed.url) resolve(parsed.url);
    }),
  );
  const failed = exited(child).then((code) => Promise.reject(new Error(`serve exited (${code}) before listening: ${stderr}`)));
  failed.catch(() => undefined);
  try {
    return { child, url: await Promise.race([listening, failed]) };
  } catch (error) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    throw error;
  }
}

/** The engine over a data folder in this process, wired like the CLI wires it (the folder's master key). */
export async function openFolderEngine(dataDir: string): Promise<{ engine: LicenseEngine; store: Store }> {
  const store = await openEmbeddedStore(dataDir);
  const { key } = await resolveMasterKey({ fromEnv: undefined, dataDir, warn: () => undefined });
  const engine = createLicenseEngine({ store, secrets: createSecretBox(key) });
  return { engine, store };
}
