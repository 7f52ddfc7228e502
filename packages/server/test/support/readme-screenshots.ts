/**
 * Takes the README's screenshots (`docs/screenshots/*.png`) of today's pages, so they can be taken
 * again whenever the pages change: a real server (the app on the embedded store, in a temporary
 * folder), the demo account of demo-data.ts made through the API, and real Chromium
 * (`/usr/bin/chromium`, as the browser tests use) signed in as the owner.
 *
 *   npx -y pnpm@10.34.9 build                                       # the dashboard the server serves
 *   npx -y pnpm@10.34.9 --filter @svc-licensing/server screenshots  # [-- <folder>], default docs/screenshots
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { signInToDashboard } from './dashboard.js';
import { openEmbeddedStore } from '../../src/stores/embedded/index.js';
import { launchChromium } from '../../../verifier/test/support/chromium.js';
import { serveApp } from './app-server.js';
import { seedDemoAccount } from './demo-data.js';
import { webBuildFile } from './web-build.js';

const repository = fileURLToPath(new URL('../../../../', import.meta.url));
const out = resolve(process.argv[2] ?? join(repository, 'docs', 'screenshots'));

/** Opens a dashboard page by its hash route and waits until it has its heading and every answer. */
async function open(page: Page, base: string, route: string, heading: string): Promise<void> {
  await page.goto(`${base}/dashboard/#/${route}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await page.waitForLoadState('networkidle');
  await page.getByText('Loading…').waitFor({ state: 'detached' });
  // The page's heading takes focus when it opens; a screenshot shows the page as a person reads it.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
}

async function main(): Promise<void> {
  webBuildFile('manifest.json'); // fails clearly without a build
  const dir = await mkdtemp(join(tmpdir(), 'svc-screenshots-'));
  const store = await openEmbeddedStore(dir);
  const server = await serveApp(store, async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  const browser = await launchChromium();
  try {
    const demo = await seedDemoAccount(server);
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-GB', timezoneId: 'Europe/Paris', deviceScaleFactor: 1 });
    const page = await context.newPage();
    await signInToDashboard(page, server);
    await mkdir(out, { recursive: true });

    await open(page, server.url, '', 'Overview');
    await page.screenshot({ path: join(out, 'overview.png') });

    await open(page, server.url, 'licenses', 'Licenses');
    await page.screenshot({ path: join(out, 'licenses.png') });

    await open(page, server.url, `products/${demo.editor}`, 'Acme Editor');
    const keys = page.getByRole('region', { name: 'Signing keys' });
    await keys.scrollIntoViewIfNeeded();
    await keys.screenshot({ path: join(out, 'product-keys.png') });

    await page.setViewportSize({ width: 375, height: 812 });
    await open(page, server.url, `licenses/${demo.licenses.ada}`, 'License of Ada Lovelace');
    await page.screenshot({ path: join(out, 'license-phone.png'), fullPage: true });
    console.log(`screenshots: overview, licenses, product-keys, license-phone in ${out}`);
  } finally {
    await browser.close();
    await server.close();
  }
}

await main();
