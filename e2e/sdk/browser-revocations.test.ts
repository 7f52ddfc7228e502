import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRevocationVectors } from '../../test-vectors/load.js';
import { app, DAY_MS, startServer } from '../support/sdk-server.js';
import { assertBrowserPrerequisites, closeServer, launchChromium, serveBundlePage, skipBrowserTests } from '../../packages/verifier/test/support/chromium.js';

// RVL1 in headless Chromium with the BUILT browser bundle (dist/browser, `pnpm build`): every published
// RVL1 vector with WebCrypto and with the noble fallback, through the same runner as `pnpm conformance`;
// then the SDK in the page against the reference server (issue 29's server half): a list fetched across
// origins when validate announces it, and a list imported by hand reporting `revoked` offline from
// localStorage.

const RUNNER = readFileSync(new URL('../../test-vectors/rvl1-run.mjs', import.meta.url), 'utf8');

const PAGE = `<!doctype html><title>rvl1</title><script type="module">
try {
  const verifier = await import('/index.js');
  const { runRevocationVectors } = await import('/rvl1-run.mjs');
  window.runVectors = async (backend) => runRevocationVectors(verifier, await (await fetch('/rvl1.json')).json(), backend);
  window.makeClient = (config) => verifier.createLicenseClient({
    ...config,
    appVersion: '1.4.0',
    storage: verifier.createLocalStorage({ key: 'acme:license' }),
    machineId: 'browser-machine-1',
    now: () => window.testNow,
  });
  window.ready = true;
} catch (error) {
  window.ready = String(error && error.stack || error);
}
</script>`;

interface Config {
  baseUrl: string;
  product: string;
  publicKeys: Record<string, string>;
}

/** Runs one client call in the page with a fresh client (as after a reload). */
function call(page: Page, config: Config, now: number, method: 'activate' | 'check' | 'importRevocationList', arg?: string) {
  return page.evaluate(
    async ({ config, now, method, arg }) => {
      const w = window as any;
      w.testNow = now;
      const client = w.makeClient(config);
      return method === 'check' ? client.check() : client[method](arg);
    },
    { config, now, method, arg },
  );
}

describe.skipIf(skipBrowserTests('e2e/sdk/browser-revocations.test'))('RVL1 in headless Chromium (browser bundle)', () => {
  let pages: Server;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    assertBrowserPrerequisites();
    ({ server: pages, origin } = await serveBundlePage(PAGE, {
      extra: {
        '/rvl1.json': { type: 'application/json', body: JSON.stringify(loadRevocationVectors()) },
        '/rvl1-run.mjs': { type: 'text/javascript', body: RUNNER },
      },
    }));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await closeServer(pages);
  });

  const openPage = async (): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => 'ready' in window, undefined, { timeout: 20_000 });
    expect(await page.evaluate(() => (window as any).ready)).toBe(true);
    return { page, errors, close: () => context.close() };
  };

  it('gives every published RVL1 vector its expected outcome with WebCrypto and with the noble fallback', async () => {
    const { page, errors, close } = await openPage();
    for (const backend of ['auto', 'noble']) {
      const rows: [string, string, string][] = await page.evaluate((b) => (window as any).runVectors(b), backend);
      expect(rows.length).toBeGreaterThan(50);
      expect(rows.map(([name, got]) => [name, got]), backend).toEqual(rows.map(([name, , expected]) => [name, expected]));
    }
    expect(errors).toEqual([]);
    await close();
  });

  it('the SDK in the page fetches an announced list across origins, and reports revoked offline after a list is imported by hand', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const list = async () => (await (await fetch(`${server.baseUrl}/products/${licensed.product}/revocations`)).text()).trim();
    const config: Config = { baseUrl: server.baseUrl, product: licensed.product, publicKeys: licensed.publicKeys };
    expect(new URL(server.baseUrl).origin).not.toBe(origin);
    const { page, errors, close } = await openPage();
    const stored = async () => JSON.parse((await page.evaluate(() => localStorage.getItem('acme:license')))!);

    const activated = await call(page, config, server.clock.now(), 'activate', licensed.key);
    expect(activated).toMatchObject({ valid: true, offline: false });

    // Another machine of the license is freed; the server lists it (seq 1) and validate announces it.
    const desktop = app(server, licensed, 'machine-desktop');
    const { activation } = await desktop.client.activate(licensed.key);
    await server.api('DELETE', `/activations/${activation}`);
    server.clock.advance(DAY_MS);
    expect(await call(page, config, server.clock.now(), 'check')).toMatchObject({ valid: true, offline: false });
    const list1 = await list();
    expect(await stored()).toMatchObject({ revocationSeq: 1, revocationList: list1 });
    expect(server.listRequests()).toHaveLength(2); // the page's GET and this test's

    // The license is revoked (seq 2); the page's machine is offline and gets the list by hand.
    await server.api('POST', `/licenses/${licensed.licenseId}/revoke`);
    const list2 = await list();
    await server.stop();
    expect(await call(page, config, server.clock.now(), 'check')).toMatchObject({ valid: true, offline: true });
    expect(await call(page, config, server.clock.now(), 'importRevocationList', list1)).toEqual({ accepted: true, reason: 'unchanged' });
    expect(await call(page, config, server.clock.now(), 'importRevocationList', list2)).toEqual({ accepted: true, reason: null });
    expect(await call(page, config, server.clock.now(), 'check')).toMatchObject({ valid: false, outcome: 'revoked', reason: 'revoked', offline: true });
    expect(await stored()).toMatchObject({ certificate: null, refusal: 'revoked', revocationSeq: 2 });
    expect(await call(page, config, server.clock.now(), 'importRevocationList', list1)).toEqual({ accepted: false, reason: 'older_seq' });
    expect(errors).toEqual([]);
    await close();
  });
});
