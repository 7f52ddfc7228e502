#!/usr/bin/env node
/**
 * Time from `pnpm start` to its `listening` line on an unchanged checkout (run after a build),
 * on a new data folder in a temporary directory and a free port. Five runs; prints each and the median.
 *
 *   node benchmarks/start.mjs
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pnpm = ['-y', 'pnpm@10.34.9', 'start'];

function once() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-start-'));
  const t0 = performance.now();
  const child = spawn('npx', pnpm, { cwd: root, env: { ...process.env, SVC_PORT: '0', SVC_DATA_DIR: join(dir, 'data') }, detached: true });
  return new Promise((resolve, reject) => {
    let out = '';
    let listening = false;
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      if (!listening && out.includes('"msg":"listening"')) {
        listening = true;
        const ms = performance.now() - t0;
        process.kill(-child.pid, 'SIGTERM');
        child.once('exit', () => {
          rmSync(dir, { recursive: true, force: true });
          resolve(ms);
        });
      }
    });
    child.once('exit', (code) => listening || reject(new Error(`pnpm start exited (${code}) before listening:\n${out}`)));
  });
}

const times = [];
for (let i = 0; i < 5; i++) {
  const ms = await once();
  times.push(ms);
  console.log(`run ${i + 1}: ${(ms / 1000).toFixed(2)} s`);
}
times.sort((a, b) => a - b);
console.log(`median: ${(times[2] / 1000).toFixed(2)} s (target < 10 s)`);
