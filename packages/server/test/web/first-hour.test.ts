import { createHash } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../support/stores.js';
import { expectIdsWhole, expectNothingCutOff, inspectPage, layoutShifts, skipBrowserTests, VIEWPORTS, type BrowserSession } from '../support/browser.js';
import type { WebServer } from '../support/web-server.js';
import { useBrowserAndServer } from '../support/browser-server.js';
import { signInToDashboard } from '../support/dashboard.js';

// The first hour of a vendor in the dashboard (issue 26), in real Chromium against a real server
// on each store: what a new account is told to do first, what a form says about a field it cannot
// send, events naming what they are about, and pages that fit a phone and a desktop. Each test
// makes the data it needs through the API; they share one account, in the order below.
const skip = skipBrowserTests('web-first-hour');

/** Opens a dashboard page by its hash route and waits for its heading and its data. */
async function open(page: Page, base: string, route: string, heading: string | RegExp): Promise<void> {
  await page.goto('about:blank'); // a fresh document: its layout shifts are its own
  await page.goto(`${base}/dashboard/#/${route}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await page.waitForLoadState('networkidle');
}

/** Whether a field is marked invalid, and the texts it is described by (its message, its hint). */
async function fieldState(field: Locator): Promise<{ invalid: boolean; description: string }> {
  return field.evaluate((el) => ({
    invalid: el.getAttribute('aria-invalid') === 'true',
    description: (el.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .filter(Boolean)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' | '),
  }));
}

async function ok<T = any>(answer: Promise<{ status: number; body: T }>): Promise<T> {
  const { status, body } = await answer;
  expect(status, JSON.stringify(body)).toBeLessThan(300);
  return body;
}

describe.skipIf(skip).each(STORE_KINDS)('the first hour of a vendor in the dashboard, on the %s store', { timeout: 120_000 }, (store) => {
  let b: BrowserSession;
  let server: WebServer;
  let page: Page;
  const ids = { product: '', plan: '', license: '', key: '' };
  // The account's product, plan and first license, made once by whichever test needs them first
  // (so each test stands whether or not the one before it passed).
  const product = async () => (ids.product ||= (await ok(server.api('POST', '/products', { name: 'Acme Editor', keyPrefix: 'ACME-' }))).id);
  const plan = async () => (ids.plan ||= (await ok(server.api('POST', `/products/${await product()}/plans`, { code: 'pro', kind: 'perpetual', maxActivations: 2 }))).id);
  const license = async () => {
    if (!ids.license) {
      const created = await ok(server.api('POST', '/licenses', { plan: await plan(), email: 'jo@customer.test', name: 'Jo Customer' }));
      [ids.license, ids.key] = [created.id, created.key];
    }
    return ids.license;
  };

  useBrowserAndServer(store, async (opened) => {
    ({ b, server } = opened);
    page = b.page;
    await signInToDashboard(page, server);
  });

  it('tells a new account its next step on the overview, a product, a plan, a license, and no more once it has one', async () => {
    const start = page.getByRole('region', { name: 'Get started' });
    await open(page, server.url, '', 'Overview');
    await start.getByRole('link', { name: 'Create your first product' }).click();
    await page.getByRole('heading', { level: 1, name: 'Products' }).waitFor();

    await product();
    await open(page, server.url, '', 'Overview');
    expect((await layoutShifts(page)).total).toBeLessThan(0.01); // the steps come with the page, not after it
    await start.getByRole('link', { name: 'Add a plan to Acme Editor' }).click();
    await page.getByRole('heading', { level: 1, name: 'Acme Editor' }).waitFor();

    await plan();
    await open(page, server.url, '', 'Overview');
    await start.getByRole('link', { name: 'Create your first license' }).click();
    await page.getByRole('heading', { level: 1, name: 'New license' }).waitFor();

    await license();
    await open(page, server.url, '', 'Overview');
    await page.getByRole('region', { name: 'Recent events' }).getByRole('link', { name: 'Jo Customer' }).waitFor();
    expect(await start.count()).toBe(0);
    expect(b.problems).toEqual([]);
  });

  it('says what a field must hold in words under the field, from its own check and from the API, never with the API\'s field path', async () => {
    await plan();
    await open(page, server.url, 'products', 'Products');
    const prefix = page.getByLabel('License key prefix');
    await page.getByLabel('Name', { exact: true }).fill('Acme Sync');
    await prefix.fill('SYNC PRO!');
    await page.getByRole('button', { name: 'Create the product' }).click();
    // The page's own check: the rule under the field, which has the focus; nothing is sent.
    await expect.poll(() => fieldState(prefix)).toMatchObject({ invalid: true, description: expect.stringContaining('A license key prefix is 1 to 16 letters, digits or hyphens') });
    expect(await prefix.evaluate((el) => el === document.activeElement)).toBe(true);
    expect((await server.api('GET', '/products')).body.data).toHaveLength(1);
    // Past the page's check (its pattern removed), the API refuses it: the same field says so in words.
    await prefix.evaluate((el) => el.removeAttribute('pattern'));
    await prefix.fill('SYNC PRO');
    expect((await fieldState(prefix)).invalid).toBe(false); // editing the field clears its message
    await page.getByRole('button', { name: 'Create the product' }).click();
    await expect.poll(() => fieldState(prefix)).toMatchObject({ invalid: true, description: expect.stringContaining('License key prefix must be 1-16 letters, digits or hyphens.') });
    expect(await page.locator('main').textContent()).not.toContain('body.');
    expect((await server.api('GET', '/products')).body.data).toHaveLength(1);

    // A plan code that is not a slug: what a plan code must be, under the field, not the browser's "match the requested format".
    await open(page, server.url, `products/${ids.product}`, 'Acme Editor');
    const plans = page.getByRole('region', { name: 'Plans of Acme Editor' });
    await plans.getByLabel('Code').fill('Team Plan');
    await plans.getByRole('button', { name: 'Add the plan' }).click();
    await expect.poll(() => fieldState(plans.getByLabel('Code'))).toMatchObject({
      invalid: true,
      description: expect.stringContaining('A plan code is lowercase letters and digits, words joined by a single - or _, with no spaces or capitals.'),
    });
    await inspectPage(page, `${store}-plan-code-refused`, { full: store === STORE_KINDS[0] });
    expect((await server.api('GET', `/products/${ids.product}/plans`)).body.data).toHaveLength(1);

    // The account settings: an address the page finds wrong, then one only the API refuses.
    await open(page, server.url, 'settings', 'Account settings');
    const replyTo = page.getByLabel('Reply-to address');
    await replyTo.fill('not-an-address');
    await page.getByRole('button', { name: 'Save the settings' }).click();
    await expect.poll(() => fieldState(replyTo)).toMatchObject({ invalid: true, description: expect.stringContaining('Reply-to address must be an e-mail address, like jo@example.com.') });
    await replyTo.evaluate((el) => el.setAttribute('type', 'text'));
    await page.getByRole('button', { name: 'Save the settings' }).click();
    await expect.poll(() => fieldState(replyTo)).toEqual({ invalid: true, description: 'Reply-to address must be an e-mail address. | Empty: replies go to the sender address' });
    expect(await page.locator('main').textContent()).not.toMatch(/replyTo|body\./);
    expect(b.problems).toEqual([]);
  });

  it('names what events are about (a license by its customer and product, a machine by its name), and the events of one license fit a phone', async () => {
    await license();
    const machine = async (name: string) => {
      const fingerprint = createHash('sha256').update(`svc:${ids.product}:${name}`).digest('hex');
      const res = await fetch(`${server.url}/v1/licenses/activate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ product: ids.product, key: ids.key, fingerprint, name, appVersion: '2.1.0' }),
      });
      expect(res.status).toBeLessThan(300);
    };
    await machine('Studio laptop');
    await ok(server.api('POST', `/licenses/${ids.license}/suspend`));

    await open(page, server.url, `events?license=${ids.license}`, 'Events');
    await page.getByRole('heading', { level: 2, name: 'Events of the license of Jo Customer' }).waitFor();
    const rows = await page.locator('tbody tr').allTextContents();
    expect(rows).toHaveLength(3);
    expect(rows[0]).toContain('Perpetual → Suspended (vendor)');
    expect(rows[1]).toContain('Studio laptop, online');
    expect(rows[2]).toContain('Plan pro, created by hand');
    for (const row of rows) {
      expect(row).toContain('Jo Customer · Acme Editor');
      expect(row, 'no raw ID or fingerprint').not.toMatch(/\b(lic|act|prd)_[0-9a-z]{26}\b|[0-9a-f]{64}/);
    }
    // The license's ID is there to copy, whole.
    await page.getByRole('button', { name: 'Copy license ID' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(ids.license);
    expect((await layoutShifts(page)).total).toBeLessThan(0.01);
    await inspectPage(page, `${store}-license-events`, { full: store === STORE_KINDS[0] }); // no sideways scroll at 375 px

    // The overview's recent events on a desktop: nothing cut off on the right.
    await open(page, server.url, '', 'Overview');
    await page.getByRole('region', { name: 'Recent events' }).getByText('Studio laptop, online').waitFor();
    await expectNothingCutOff(page, 'overview at 1280 px');
    await ok(server.api('POST', `/licenses/${ids.license}/reinstate`));
    expect(b.problems).toEqual([]);
  });

  it('says so when the events are filtered by an ID no license has, instead of "No events yet"', async () => {
    const unknown = `lic_${'0'.repeat(26)}`;
    await open(page, server.url, `events?license=${unknown}`, 'Events');
    await page.getByText(`No license has the ID ${unknown}.`).waitFor();
    expect(await page.getByText(/No events/).count()).toBe(0);
    await inspectPage(page, `${store}-events-unknown-license`, { full: false });
    expect(b.problems).toEqual([]);
  });

  it('names a customer without a name once, by the e-mail, on the license, in the list and in the events', async () => {
    const unnamed = await ok(server.api('POST', '/licenses', { plan: await plan(), email: 'noname@customer.test' }));
    await open(page, server.url, `licenses/${unnamed.id}`, 'License of noname@customer.test');
    const customer = page.locator('.fact').filter({ has: page.getByText('Customer', { exact: true }) }).locator('dd');
    expect((await customer.textContent())?.trim()).toBe('noname@customer.test');
    await open(page, server.url, 'licenses?q=noname', 'Licenses');
    const row = page.locator('tbody tr').filter({ hasText: 'noname@customer.test' });
    await row.waitFor();
    expect((await row.textContent())!.split('noname@customer.test')).toHaveLength(2); // once
    await open(page, server.url, `events?license=${unnamed.id}`, 'Events');
    await page.getByRole('heading', { level: 2, name: 'Events of the license of noname@customer.test' }).waitFor();
    await page.locator('tbody tr').filter({ hasText: 'noname@customer.test · Acme Editor' }).waitFor();
    expect(b.problems).toEqual([]);
  });

  it('keeps IDs whole on a phone, each with a copy button, and wraps the portal address only between its parts', async () => {
    await license();
    for (const [route, heading, what, id] of [
      [`licenses/${ids.license}`, 'License of Jo Customer', 'license ID', ids.license],
      [`products/${ids.product}`, 'Acme Editor', 'product ID', ids.product],
      [`plans/${ids.plan}`, 'Plan pro', 'plan ID', ids.plan],
      ['settings', 'Account settings', 'account ID', server.accountId],
      ['products', 'Products', 'ID of Acme Editor', ids.product],
    ] as const) {
      await open(page, server.url, route, heading);
      await page.setViewportSize(VIEWPORTS.phone);
      try {
        await expectIdsWhole(page, route);
        await expectNothingCutOff(page, `${route} at 375 px`);
        await page.getByRole('button', { name: `Copy ${what}` }).click();
        expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(id);
      } finally {
        await page.setViewportSize(VIEWPORTS.desktop);
      }
    }
    // The customer portal's address: whole on the clipboard, and on a phone, where it takes two
    // lines, wrapped only after a '/' (expectIdsWhole reads where each line starts).
    await open(page, server.url, 'settings', 'Account settings');
    await page.getByRole('button', { name: 'Copy customer portal address' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${server.url}/portal/${server.accountId}/`);
    await page.setViewportSize(VIEWPORTS.phone);
    try {
      const lines = await page.locator('.address').evaluate((el) => el.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(el).lineHeight));
      expect(lines).toBeGreaterThanOrEqual(1.9);
      await expectIdsWhole(page, 'settings at 375 px');
    } finally {
      await page.setViewportSize(VIEWPORTS.desktop);
    }
    expect(b.problems).toEqual([]);
  });

  it('gives every app page an icon the browser finds', async () => {
    for (const path of ['/dashboard/', `/portal/${server.accountId}/`]) {
      await page.goto(`${server.url}${path}`);
      const icon = await page.evaluate(async () => {
        const link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
        if (!link) return null;
        const res = await fetch(link.href);
        return { status: res.status, type: res.headers.get('content-type') };
      });
      expect(icon, path).toEqual({ status: 200, type: 'image/x-icon' });
    }
    const root = await page.evaluate(async () => (await fetch('/favicon.ico')).status);
    expect(root).toBe(200);
    expect(b.problems).toEqual([]);
  });
});
