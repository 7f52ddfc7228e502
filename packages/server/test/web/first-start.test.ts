import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, cliEntry, exited, onLines, spawnTs } from '../support/cli-process.js';
import { openBrowser, screenshot, skipBrowserTests, type BrowserSession } from '../support/browser.js';

// A new user's first minute: `serve` on a new data folder, the README's "Open the dashboard" block
// prints the sign-in link, and the browser reaches the signed-in dashboard without any mail server.
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const skip = skipBrowserTests('web-first-start');

let dir = '';
let b: BrowserSession | undefined;
const children: ChildProcessWithoutNullStreams[] = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await b?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function readmeBlock(heading: string): Promise<string> {
  const text = await readFile(join(root, 'README.md'), 'utf8');
  const from = text.indexOf(`\n${heading}\n`);
  expect(from).toBeGreaterThan(0);
  return /^```sh\n([\s\S]*?)^```$/m.exec(text.slice(from))![1]!;
}

describe.skipIf(skip)('the first start', () => {
  it('leads from a new data folder to the signed-in dashboard with the link the README prints, without a mail server', async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-first-'));
    const data = join(dir, 'data');
    const started = Date.now();
    const child = spawnTs(cliEntry, ['serve', '--data', data, '--port', '0'], cleanEnv);
    children.push(child);
    let output = '';
    const url = await new Promise<string>((resolve) =>
      onLines(child, (line) => {
        output += `${line}\n`;
        if (line.includes('"listening"')) resolve((JSON.parse(line) as { url: string }).url);
      }),
    );

    const block = await readmeBlock('## Open the dashboard');
    const printed = spawn('bash', ['-c', block], { cwd: root, env: { ...process.env, SVC_DATA_DIR: data }, stdio: 'pipe' });
    let link = '';
    printed.stdout.setEncoding('utf8').on('data', (c: string) => (link += c));
    expect(await exited(printed)).toBe(0);
    link = link.trim();
    expect(link.startsWith(`${url}/sign-in?token=`)).toBe(true);
    const file = JSON.parse(await readFile(join(data, 'initial-account.json'), 'utf8')) as { dashboardUrl: string; signInUrlExpiresAt: string };
    expect(file.dashboardUrl).toBe(`${url}/dashboard/`);
    expect(Date.parse(file.signInUrlExpiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);

    b = await openBrowser();
    await b.page.goto(link);
    await b.page.getByRole('button', { name: 'Sign in' }).click();
    await b.page.waitForURL(`${url}/dashboard/`);
    await b.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await b.page.getByText('owner@example.com · owner').waitFor();
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(60_000);
    await screenshot(b.page, 'first-start-overview');
    expect(b.problems).toEqual([]);

    // The link is single-use and never logged.
    const token = new URL(link).searchParams.get('token')!;
    expect(output).not.toContain(token);
    expect(output).toContain('open the signInUrl of');
    const again = await fetch(link, { method: 'POST', redirect: 'manual' });
    expect(again.status).toBe(410);
    expect(again.headers.get('set-cookie')).toBeNull();
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  });
});
