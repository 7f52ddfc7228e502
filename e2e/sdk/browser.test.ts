import type { Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, startServer } from '../support/sdk-server.js';
import { assertBrowserPrerequisites, closeServer, launchChromium, serveBundlePage, skipBrowserTests } from '../../packages/verifier/test/support/chromium.js';

// Runs the SDK from the BUILT browser bundle (dist/browser, built by `pnpm build`) in Debian's
// headless Chromium against the real reference server. The page and the API are on different
// origins (two ports), so every client call goes through the server's CORS answers.

// The page: plain JavaScript run by Chromium, importing the built bundle. `window.makeClient`
// builds a client on localStorage whose clock is `window.testNow` (the test moves it with the server's).
const PAGE = `<!doctype html><title>sdk</title><script type="module">
try {
  const sdk = await import('/index.js');
  window.makeClient = (config) => sdk.createLicenseClient({
    ...config,
    appVersion: '1.4.0',
    storage: sdk.createLocalStorage({ key: 'acme:license' }),
    machineId: 'browser-machine-1',
    now: () => window.testNow,
  });
  window.isClientError = (error) => sdk.LicenseClientError.is(error);
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

/** Runs `client.<method>()` in the page with a fresh client (as after a page reload) and returns the answer or the error. */
async function call(page: Page, config: Config, now: number, method: 'activate' | 'check' | 'validate' | 'deactivate', key?: string) {
  return page.evaluate(
    async ({ config, now, method, key }) => {
      const w = window as any;
      w.testNow = now;
      const client = w.makeClient(config);
      try {
        return { ok: true, value: await (method === 'activate' ? client.activate(key) : client[method]()) };
      } catch (error: any) {
        return { ok: false, isClientError: w.isClientError(error), code: error.code, status: error.status };
      }
    },
    { config, now, method, key },
  );
}

describe.skipIf(skipBrowserTests('e2e/sdk/browser.test'))('SDK browser build in headless Chromium against the reference server', () => {
  let pages: Server;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    assertBrowserPrerequisites();
    ({ server: pages, origin } = await serveBundlePage(PAGE));
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await closeServer(pages);
  });

  it('activates, answers offline from localStorage, refreshes across origins, falls back offline, and deactivates', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const config: Config = { baseUrl: server.baseUrl, product: licensed.product, publicKeys: licensed.publicKeys };
    expect(new URL(server.baseUrl).origin).not.toBe(origin);

    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => 'ready' in window, undefined, { timeout: 20_000 });
    expect(await page.evaluate(() => (window as any).ready)).toBe(true);

    const activated = await call(page, config, server.clock.now(), 'activate', licensed.key);
    expect(activated).toMatchObject({ ok: true, value: { valid: true, offline: false, activation: expect.stringMatching(/^act_/) } });
    const stored = JSON.parse((await page.evaluate(() => localStorage.getItem('acme:license')))!);
    expect(stored).toMatchObject({ format: 'svc-license-state-v1', product: licensed.product, key: licensed.key });

    // A reloaded app answers from localStorage without calling the server.
    server.clock.advance(DAY_MS / 2);
    expect(await call(page, config, server.clock.now(), 'check')).toMatchObject({ ok: true, value: { valid: true, offline: true, refreshError: null } });
    expect(server.clientCalls('validate')).toBe(0);

    server.clock.advance(DAY_MS / 2);
    expect(await call(page, config, server.clock.now(), 'check')).toMatchObject({ ok: true, value: { valid: true, offline: false } });
    expect(server.clientCalls('validate')).toBe(1);

    await server.stop();
    server.clock.advance(DAY_MS);
    expect(await call(page, config, server.clock.now(), 'check')).toMatchObject({
      ok: true,
      value: { valid: true, offline: true, refreshError: 'network_error' },
    });
    expect(await call(page, config, server.clock.now(), 'deactivate')).toMatchObject({ ok: false, isClientError: true, code: 'network_error' });

    await server.start();
    expect(await call(page, config, server.clock.now(), 'deactivate')).toEqual({ ok: true, value: { released: true } });
    expect(JSON.parse((await page.evaluate(() => localStorage.getItem('acme:license')))!)).toMatchObject({ key: null, certificate: null });
    expect(await call(page, config, server.clock.now(), 'validate')).toMatchObject({ ok: false, code: 'no_license_key' });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('keeps the server error code in the page (activation_limit over CORS)', async () => {
    const server = await startServer();
    const licensed = await server.license({ plan: { maxActivations: 1 } });
    const elsewhere = await fetch(`${server.baseUrl}/licenses/activate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ product: licensed.product, key: licensed.key, fingerprint: 'e'.repeat(64) }),
    });
    expect(elsewhere.status).toBe(200);

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => 'ready' in window, undefined, { timeout: 20_000 });
    const config: Config = { baseUrl: server.baseUrl, product: licensed.product, publicKeys: licensed.publicKeys };
    expect(await call(page, config, server.clock.now(), 'activate', licensed.key)).toEqual({
      ok: false,
      isClientError: true,
      code: 'activation_limit',
      status: 409,
    });
    await context.close();
  });
});
