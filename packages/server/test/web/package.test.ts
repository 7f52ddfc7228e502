import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// The published server serves the dashboard from the copy of the web build in its own dist/web
// (made by `pnpm build`, which the test command runs first), without the workspace.
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = fileURLToPath(new URL('../../bin/svc-licensing.cjs', import.meta.url));
const manifest = () => JSON.parse(readFileSync(`${root}dist/web/manifest.json`, 'utf8')) as { apps: Record<string, { html: string }>; assets: string[] };

describe('the server package ships the web build', () => {
  it('lists every built file of the apps in the package', async () => {
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root });
    const files = new Set((JSON.parse(stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path));
    const built = manifest();
    expect(files.has('dist/web/manifest.json')).toBe(true);
    for (const app of Object.values(built.apps)) expect(files.has(`dist/web/${app.html}`)).toBe(true);
    for (const asset of built.assets) expect(files.has(`dist/web/assets/${asset}`), asset).toBe(true);
  });

  it('serves the dashboard from the built server', async () => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--database', 'memory:'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SVC_PUBLIC_URL: '' } });
    try {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      for (let i = 0; i < 200 && !out.includes('"listening"'); i++) await new Promise((r) => setTimeout(r, 50));
      const url = (JSON.parse(out.split('\n').find((l) => l.includes('"listening"'))!) as { url: string }).url;
      const res = await fetch(`${url}/dashboard/`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(readFileSync(`${root}dist/web/dashboard/index.html`, 'utf8'));
      const asset = manifest().assets.find((a) => a.endsWith('.js'))!;
      const file = await fetch(`${url}/dashboard/assets/${asset}`);
      expect(file.status).toBe(200);
      expect(Buffer.from(await file.arrayBuffer()).equals(readFileSync(`${root}dist/web/assets/${asset}`))).toBe(true);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });
});
