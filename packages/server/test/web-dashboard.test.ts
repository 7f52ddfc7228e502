import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './helpers/harness.js';
import { STORE_KINDS } from './helpers/stores.js';
import { inspectPage, layoutShift, openBrowser, serverUrl, skipBrowserTests, type BrowserSession } from './support/browser.js';

// The vendor dashboard in real Chromium against a real server, on each store.
const skip = skipBrowserTests('web-dashboard');

describe.skipIf(skip).each(STORE_KINDS)('the dashboard on the %s store', (store) => {
  let b: BrowserSession;
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    b = await openBrowser();
  });
  afterAll(async () => {
    await b?.close();
  });

  it('shows a signed-out visitor the sign-in page: labelled, keyboard-usable, no CSP refusal, no layout shift', async () => {
    h = await createHarness({ mode: 'node-server', store });
    base = await serverUrl(() => h.fetch('/health'));
    const { page } = b;
    await page.goto(`${base}/dashboard/`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await page.title()).toBe('Sign in · Licensing dashboard');
    // The first Tab reaches the e-mail field, which is announced by its label.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('email');
    await expect(page.getByLabel('E-mail address').isVisible()).resolves.toBe(true);
    expect(await layoutShift(page)).toBeLessThan(0.01);
    await inspectPage(page, `${store}-sign-in`);
    expect(b.problems).toEqual([]);
  });
});
