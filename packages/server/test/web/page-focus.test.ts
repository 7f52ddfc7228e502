import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../support/stores.js';
import { skipBrowserTests, type BrowserSession } from '../support/browser.js';
import type { WebServer } from '../support/web-server.js';
import { useBrowserAndServer } from '../support/browser-server.js';
import { openDashboardPage, signInToDashboard } from '../support/dashboard.js';

// Where the focus goes when a dashboard page opens, in real Chromium against a real server on each
// store. Opening a page moves the focus to its heading (a screen reader announces the page), but a
// keyboard user who moved on while the page's data loaded keeps the focus where they put it: the
// heading's text changing when the data arrives ("License" to "License of Ada Customer") does not
// pull them back.
const skip = skipBrowserTests('web-page-focus');

/** What has the focus: its tag and text. */
const focused = (page: Page) => page.evaluate(() => ({ tag: document.activeElement?.tagName, text: document.activeElement?.textContent?.trim() }));

describe.skipIf(skip).each(STORE_KINDS)('the focus as dashboard pages open on the %s store', { timeout: 120_000 }, (store) => {
  let b: BrowserSession;
  let server: WebServer;
  let page: Page;
  let licenseId = '';

  useBrowserAndServer(store, async (opened) => {
    ({ b, server } = opened);
    page = b.page;
    const product = (await server.api('POST', '/products', { name: 'Acme Editor', keyPrefix: 'ACME-' })).body;
    const plan = (await server.api('POST', `/products/${product.id}/plans`, { code: 'pro', name: 'Pro', kind: 'perpetual' })).body;
    const license = await server.api('POST', '/licenses', { plan: plan.id, email: 'ada@customer.test', name: 'Ada Customer' });
    expect(license.status).toBe(201);
    licenseId = license.body.id;
    await signInToDashboard(page, server);
  });

  it('a navigation link pressed with the keyboard moves the focus to the new page\'s heading', async () => {
    const link = page.getByRole('link', { name: 'Licenses', exact: true });
    await link.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Licenses' }).waitFor();
    await expect.poll(() => focused(page)).toEqual({ tag: 'H1', text: 'Licenses' });
    expect(b.problems).toEqual([]);
  });

  it('a page opened from nothing focuses its heading, which keeps the focus as its title fills in', async () => {
    await page.goto('about:blank');
    await openDashboardPage(page, server.url, `licenses/${licenseId}`, 'License of Ada Customer');
    await expect.poll(() => focused(page)).toEqual({ tag: 'H1', text: 'License of Ada Customer' });
    expect(b.problems).toEqual([]);
  });

  it('a keyboard user who tabs on while the license loads keeps the focus when it arrives', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const licenseRead = (url: URL) => url.pathname === `/v1/licenses/${licenseId}`;
    await page.route(licenseRead, async (route) => {
      await held;
      await route.continue();
    });
    try {
      await page.goto('about:blank');
      await openDashboardPage(page, server.url, `licenses/${licenseId}`, /^License$/);
      await expect.poll(() => focused(page)).toEqual({ tag: 'H1', text: 'License' });
      await page.keyboard.press('Tab');
      expect(await focused(page)).toEqual({ tag: 'A', text: 'All licenses' });
      release();
      await page.getByRole('heading', { level: 1, name: 'License of Ada Customer' }).waitFor();
      await page.getByRole('link', { name: 'Events of this license' }).waitFor();
      // Rendered with the data, and the focus is still on the link the user tabbed to.
      expect(await focused(page)).toEqual({ tag: 'A', text: 'All licenses' });
    } finally {
      release();
      await page.unroute(licenseRead);
    }
    expect(b.problems).toEqual([]);
  });
});
