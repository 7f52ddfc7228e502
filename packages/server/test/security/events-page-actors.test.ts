import { describe, expect, it } from 'vitest';
import { inspectPage, skipBrowserTests, type BrowserSession } from '../support/browser.js';
import { STORE_KINDS } from '../support/stores.js';
import type { WebServer } from '../support/web-server.js';
import { useBrowserAndServer } from '../support/browser-server.js';
import { signInToDashboard } from '../support/dashboard.js';

// Issue 25, should fix, in Chromium: the dashboard's events page says who did each thing, and
// filters the log by the kind of actor (the owner, members, API keys, the operator, customers).
const skip = skipBrowserTests('security-events-page');

describe.skipIf(skip).each(STORE_KINDS)('the events page by actor on the %s store', { timeout: 120_000 }, (store) => {
  let b: BrowserSession;
  let server: WebServer;
  useBrowserAndServer(store, (opened) => ({ b, server } = opened));

  it('shows who did each security action, and lists only the API keys\' actions when asked', async () => {
    const page = b.page;
    await signInToDashboard(page, server);
    // The default API key makes a key, which makes one of its own before the default key revokes
    // it; the owner invites a member from the page.
    const made = await server.api('POST', '/api-keys', { name: 'short-lived' });
    const child = await fetch(`${server.url}/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${made.body.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'made-by-short-lived' }),
    });
    expect(child.status).toBe(201);
    expect((await server.api('DELETE', `/api-keys/${made.body.id}`)).status).toBe(200);
    await page.goto(`${server.url}/dashboard/#/members`);
    await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
    await page.getByLabel('E-mail address').fill(`mia-${store}@vendor.test`);
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await page.getByText('is invited').waitFor();

    await page.goto(`${server.url}/dashboard/#/events`);
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    const rows = page.getByRole('table', { name: 'Events, newest first' }).locator('tbody tr');
    await rows.filter({ hasText: 'Member invited' }).waitFor();
    expect(await rows.filter({ hasText: 'Member invited' }).textContent()).toContain(`Owner ${server.ownerEmail}`);
    expect(await rows.filter({ hasText: 'Signed in' }).first().textContent()).toContain(`Owner ${server.ownerEmail}`);
    // Each key by its name: a listed key, and a revoked one by the events that name it.
    expect(await rows.filter({ hasText: 'API key revoked' }).textContent()).toContain('API key default');
    expect(await rows.filter({ hasText: 'made-by-short-lived' }).textContent()).toContain('API key short-lived');

    await page.getByLabel('Done by').selectOption('api_key');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/actor=api_key/);
    await page.getByRole('heading', { level: 2, name: 'Events by API keys' }).waitFor();
    await rows.filter({ hasText: 'API key created' }).first().waitFor();
    await expect.poll(async () => (await rows.evaluateAll((trs) => trs.map((tr) => tr.textContent ?? ''))).every((t) => /API key (default|short-lived)$/.test(t))).toBe(true);
    const shown = await rows.evaluateAll((trs) => trs.map((tr) => tr.textContent ?? ''));
    expect(shown.some((t) => t.includes('API key revoked'))).toBe(true);
    expect(shown.some((t) => t.includes('Member invited'))).toBe(false);
    await inspectPage(page, `${store}-security-events-by-actor`, { full: store === 'embedded' });
    expect(b.problems).toEqual([]);
  });
});
