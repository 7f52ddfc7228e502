import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The package's `svc-licensing` bin: a CommonJS launcher that sizes libuv's thread pool, then
// loads the built CLI (`dist/cli.js`, made by `pnpm build`, which the test command runs first).
const bin = fileURLToPath(new URL('../../bin/svc-licensing.cjs', import.meta.url));

/** The bin with this process's environment, minus UV_THREADPOOL_SIZE, plus `env`. */
function run(args: string[], env: Record<string, string> = {}) {
  const { UV_THREADPOOL_SIZE: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, [bin, ...args], { env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  return { child, output: () => out };
}

/** Threads of a `serve` started through the bin, counted once it listens (Linux `/proc`). */
async function threadsOfServe(env: Record<string, string>): Promise<number> {
  const { child, output } = run(['serve', '--port', '0', '--database', 'memory:'], env);
  try {
    for (let i = 0; i < 200 && !output().includes('"listening"'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(output()).toContain('"listening"');
    return readdirSync(`/proc/${child.pid}/task`).length;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

describe('the svc-licensing bin', () => {
  it('runs the CLI', async () => {
    const { child, output } = run(['help']);
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(0);
    expect(output()).toContain('Usage: svc-licensing');
  });

  it.runIf(process.platform === 'linux')('leaves one core to the event loop: one signing thread fewer than cores, unless UV_THREADPOOL_SIZE is given', async () => {
    const sized = await threadsOfServe({});
    const explicit = await threadsOfServe({ UV_THREADPOOL_SIZE: '8' });
    // Same process otherwise: the difference is the pool's threads.
    expect(explicit - sized).toBe(8 - Math.max(1, availableParallelism() - 1));
  }, 30_000);
});
