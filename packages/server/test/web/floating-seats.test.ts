import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { fingerprint } from '../support/fixtures.js';
import { STORE_KINDS } from '../support/stores.js';
import { inspectPage, screenshot, skipBrowserTests, type BrowserSession } from '../support/browser.js';
import type { WebServer } from '../support/web-server.js';
import { useBrowserAndServer } from '../support/browser-server.js';
import { signInToDashboard } from '../support/dashboard.js';

// Floating seats in the dashboard (issue 27), in real Chromium against a real server on each store:
// a vendor creates a floating plan with its lease settings and a machine plan without them, and
// sees each plan's seat mode in the list and on its page; a floating license's page shows live/limit
// and each machine's lease end or borrow end, and so does the customer portal, where the customer
// frees a machine; freeing a borrowed machine says its certificate stays valid offline.
const skip = skipBrowserTests('web-floating-seats');

describe.skipIf(skip).each(STORE_KINDS)('floating seats in the dashboard on the %s store', { timeout: 120_000 }, (store) => {
  let b: BrowserSession;
  let server: WebServer;
  let page: Page;
  const s = { product: '', floatingPlan: '', license: '', key: '', borrowed: '' };
  const BUYER = 'team-buyer@customer.test';
  /** A client API call of a machine (the SDK's requests, without its certificate checks). */
  const client = async (route: 'activate' | 'borrow', n: number, extra: Record<string, unknown>) => {
    const res = await fetch(`${server.url}/v1/licenses/${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ product: s.product, key: s.key, fingerprint: fingerprint(s.product, `${store}-${n}`), ...extra }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  useBrowserAndServer(store, async (opened) => {
    ({ b, server } = opened);
    page = b.page;
    s.product = (await server.api('POST', '/products', { name: 'Acme Studio', keyPrefix: 'STU-' })).body.id;
    await signInToDashboard(page, server);
  });

  it('creates a floating plan with its lease settings; a machine plan has none; the list says which is which', async () => {
    await page.goto(`${server.url}/dashboard/#/plans?product=${s.product}`);
    await page.getByRole('heading', { level: 1, name: 'Plans' }).waitFor();
    const plans = page.getByRole('region', { name: 'Plans of Acme Studio' });
    // A machine plan (the default) shows no lease field.
    expect(await plans.getByLabel('Seats', { exact: true }).inputValue()).toBe('machine');
    expect(await plans.getByLabel('Lease seconds').count()).toBe(0);
    await plans.getByLabel('Code').fill('desk');
    await plans.getByLabel('Name').fill('Desk');
    await plans.getByLabel('Kind').selectOption('perpetual');
    await plans.getByRole('button', { name: 'Add the plan' }).click();
    await plans.getByRole('cell', { name: 'desk', exact: true }).waitFor();

    await plans.getByLabel('Code').fill('team');
    await plans.getByLabel('Name').fill('Team');
    await plans.getByLabel('Kind').selectOption('subscription');
    await plans.getByLabel('Seats', { exact: true }).selectOption('floating');
    // The API's defaults, then the vendor's own values.
    expect(await plans.getByLabel('Lease seconds').inputValue()).toBe('900');
    expect(await plans.getByLabel('Borrow days at most').inputValue()).toBe('0');
    await plans.getByLabel('Lease seconds').fill('600');
    await plans.getByLabel('Borrow days at most').fill('7');
    await plans.getByLabel('Borrowed seats at most').fill('2');
    await plans.getByLabel('Machines per seat').fill('3');
    await plans.getByRole('button', { name: 'Add the plan' }).click();
    await plans.getByRole('cell', { name: 'team', exact: true }).waitFor();
    await plans.getByRole('cell', { name: 'floating · 10 min lease · borrow up to 7 days, 2 borrowed at most' }).waitFor();
    await plans.getByRole('cell', { name: 'machine', exact: true }).waitFor();

    const listed = (await server.api('GET', `/products/${s.product}/plans`)).body.data as Array<Record<string, unknown>>;
    const team = listed.find((p) => p.code === 'team')!;
    expect(team).toMatchObject({ seatMode: 'floating', leaseSeconds: 600, maxBorrowDays: 7, maxBorrowedSeats: 2, maxActivations: 3 });
    expect(listed.find((p) => p.code === 'desk')).toMatchObject({ seatMode: 'machine', leaseSeconds: null, maxBorrowDays: null, maxBorrowedSeats: null });
    s.floatingPlan = team.id as string;
    await inspectPage(page, `${store}-floating-plans`, { full: store === 'embedded' });
    expect(b.problems).toEqual([]);
  });

  it('a lease out of range is refused with the API message and nothing is created', async () => {
    const plans = page.getByRole('region', { name: 'Plans of Acme Studio' });
    await plans.getByLabel('Code').fill('short');
    await plans.getByLabel('Seats', { exact: true }).selectOption('floating');
    await plans.getByLabel('Lease seconds').fill('60');
    await plans.getByRole('button', { name: 'Add the plan' }).click();
    // The browser's own check stops it first: the field says what fits.
    await plans.getByText('Lease seconds must be a whole number from 120 to 86400.').waitFor();
    const listed = (await server.api('GET', `/products/${s.product}/plans`)).body.data as Array<{ code: string }>;
    expect(listed.map((p) => p.code)).not.toContain('short');
  });

  it("edits a floating plan's lease settings on its page; the seat mode is fixed", async () => {
    await page.goto(`${server.url}/dashboard/#/plans/${s.floatingPlan}`);
    await page.getByRole('heading', { level: 1, name: 'Plan Team' }).waitFor();
    await page.getByText('floating · 10 min lease · borrow up to 7 days, 2 borrowed at most').waitFor();
    expect(await page.getByLabel('Lease seconds').inputValue()).toBe('600');
    await page.getByLabel('Lease seconds').fill('1800');
    await page.getByLabel('Borrowed seats at most').fill('');
    await page.getByRole('button', { name: 'Save the plan' }).click();
    await page.getByText('Saved.', { exact: false }).waitFor();
    await page.getByText('floating · 30 min lease · borrow up to 7 days', { exact: true }).waitFor();
    expect((await server.api('GET', `/plans/${s.floatingPlan}`)).body).toMatchObject({ seatMode: 'floating', leaseSeconds: 1800, maxBorrowDays: 7, maxBorrowedSeats: null });
    await inspectPage(page, `${store}-floating-plan`, { full: store === 'embedded' });

    // A machine plan's page has no lease field (and, not being a trial, no trial days to refuse the save).
    const desk = ((await server.api('GET', `/products/${s.product}/plans`)).body.data as Array<{ id: string; code: string }>).find((p) => p.code === 'desk')!;
    await page.goto(`${server.url}/dashboard/#/plans/${desk.id}`);
    await page.getByRole('heading', { level: 1, name: 'Plan Desk' }).waitFor();
    expect(await page.getByLabel('Lease seconds').count()).toBe(0);
    await page.getByLabel('Machines per seat').fill('2');
    await page.getByRole('button', { name: 'Save the plan' }).click();
    await page.getByText('Saved.', { exact: false }).waitFor();
    expect((await server.api('GET', `/plans/${desk.id}`)).body).toMatchObject({ seatMode: 'machine', maxActivations: 2, leaseSeconds: null });
    expect(b.problems).toEqual([]);
  });

  it("shows a floating license's live leases of its limit and each machine's lease or borrow; freeing a borrowed machine says its certificate stays valid offline", async () => {
    const paidUntil = new Date(Date.now() + 365 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const license = await server.api('POST', '/licenses', { plan: s.floatingPlan, email: BUYER, name: 'Team Buyer', paidUntil });
    expect(license.status).toBe(201);
    Object.assign(s, { license: license.body.id, key: license.body.key });
    const borrowed = await client('borrow', 1, { days: 5, name: 'Travel laptop' });
    expect(borrowed.status).toBe(200);
    s.borrowed = borrowed.body.activation;
    expect((await client('activate', 2, { name: 'Lab PC' })).status).toBe(200);

    await page.goto(`${server.url}/dashboard/#/licenses/${s.license}`);
    await page.getByRole('heading', { level: 1, name: 'License of Team Buyer' }).waitFor();
    await page.getByText('2 of 3 running now, 1 borrowed').waitFor();
    const machines = page.getByRole('region', { name: 'Machines' });
    const views = (await server.api('GET', `/licenses/${s.license}`)).body.activations as Array<{ name: string; leaseExpiresAt: string; borrowedUntil: string | null }>;
    const laptop = views.find((a) => a.name === 'Travel laptop')!;
    const lab = views.find((a) => a.name === 'Lab PC')!;
    // Each lease cell names its end, the exact UTC instant on hover.
    const borrowCell = machines.getByRole('cell', { name: /^Borrowed until / });
    expect(await borrowCell.locator('time').getAttribute('title')).toBe(`${laptop.borrowedUntil} (UTC)`);
    const leaseCell = machines.getByRole('cell', { name: /^Lease ends / });
    expect(await leaseCell.locator('time').getAttribute('title')).toBe(`${lab.leaseExpiresAt} (UTC)`);
    await inspectPage(page, `${store}-floating-license`, { full: store === 'embedded' });

    await machines.getByRole('button', { name: 'Free Travel laptop' }).click();
    const dialog = page.getByRole('dialog', { name: 'Free this machine?' });
    await dialog.getByText('the borrowed certificate on the machine stays valid offline until it expires on').waitFor();
    if (store === 'embedded') await screenshot(page, `${store}-floating-free-dialog`);
    await dialog.getByRole('button', { name: 'Free the machine' }).click();
    await page.getByText('Travel laptop is freed').waitFor();
    await page.getByText('1 of 3 running now', { exact: true }).waitFor();
    // The license list counts the live leases of a floating license.
    await page.goto(`${server.url}/dashboard/#/licenses`);
    await page.getByRole('heading', { level: 1, name: 'Licenses' }).waitFor();
    await page.getByRole('cell', { name: '1 / 3 running', exact: true }).waitFor();
    expect(b.problems).toEqual([]);
  });

  it('shows the customer the same in the portal; the customer frees a machine and returns a borrow', async () => {
    expect((await client('borrow', 3, { days: 2, name: 'Field tablet' })).status).toBe(200);
    const before = server.smtp.messages.length;
    const portal = `${server.url}/portal/${server.accountId}/`;
    await page.goto(portal);
    await page.getByLabel('E-mail address').fill(BUYER);
    await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
    await page.goto(await server.linkMailedTo(BUYER, before));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your licenses' }).waitFor();
    await page.getByText('2 of 3 running now, 1 borrowed').waitFor();
    await inspectPage(page, `${store}-floating-portal-licenses`, { full: store === 'embedded' });

    await page.getByRole('link', { name: 'Acme Studio' }).click();
    await page.getByRole('heading', { level: 1, name: 'Acme Studio · Team' }).waitFor();
    const table = page.getByRole('table', { name: 'Machines using this license' });
    await table.getByRole('cell', { name: /^Borrowed until / }).waitFor();
    await table.getByRole('cell', { name: /^Lease ends / }).waitFor();
    await inspectPage(page, `${store}-floating-portal-license`, { full: store === 'embedded' });

    // Returning the borrow: the confirmation says the certificate stays valid offline until it expires.
    await page.getByRole('button', { name: 'Free Field tablet' }).click();
    const dialog = page.getByRole('dialog', { name: 'Free this machine?' });
    await dialog.getByText('the borrowed certificate on the machine stays valid offline until it expires on').waitFor();
    await dialog.getByRole('button', { name: 'Free the machine' }).click();
    await page.getByText('Field tablet is freed.').waitFor();
    await page.getByText('1 of 3 running now', { exact: true }).waitFor();
    const events = (await server.api('GET', `/events?license=${s.license}`)).body.data as Array<{ type: string; data: Record<string, unknown> }>;
    expect(events.filter((e) => e.type === 'lease.returned').map((e) => e.data.source).sort()).toEqual(['portal', 'vendor']);
    // The seat is free again: a new machine checks one out.
    expect((await client('activate', 4, { name: 'New desk' })).status).toBe(200);
    expect(b.problems).toEqual([]);
  });
});
