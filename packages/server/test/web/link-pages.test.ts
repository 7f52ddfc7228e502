import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../support/stores.js';
import { inspectPage, skipBrowserTests, type BrowserSession } from '../support/browser.js';
import type { WebServer } from '../support/web-server.js';
import { useBrowserAndServer } from '../support/browser-server.js';

// The one-time link pages (sign-in and reopen) in real Chromium against a real server, on each
// store: server-rendered, no script, used with the keyboard only, and the cookie they set.
const skip = skipBrowserTests('web-link-pages');

/** Presses the page's only button with the keyboard (Tab to it, Enter) and waits for the dashboard. */
async function pressWithKeyboard(page: Page, server: WebServer, label: string): Promise<void> {
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(label);
  await Promise.all([page.waitForURL(`${server.url}/dashboard/`), page.keyboard.press('Enter')]);
}

describe.skipIf(skip).each(STORE_KINDS)('the link pages on the %s store', (store) => {
  let b: BrowserSession;
  let server: WebServer;
  useBrowserAndServer(store, (opened) => ({ b, server } = opened));

  it('the sign-in link page: accessible at both widths, a keyboard press signs in with an HttpOnly, SameSite=Lax cookie', async () => {
    const { page, context } = b;
    const link = await server.engine.issueSignInLink(server.accountId);
    const response = await page.goto(`${server.url}/sign-in?token=${encodeURIComponent(link.token)}`);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await page.locator('script').count()).toBe(0);
    await inspectPage(page, `${store}-link-sign-in`);
    await pressWithKeyboard(page, server, 'Sign in');
    const cookie = (await context.cookies()).find((c) => c.name === 'svc_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', secure: false });
    expect(b.problems).toEqual([]);
  });

  it('closing from the signed-in browser (a same-origin request) e-mails a reopen link whose page reopens the account and signs in', async () => {
    const { page, context } = b;
    const before = server.smtp.messages.length;
    // What the dashboard's own fetch sends: the cookie and the page's Origin.
    const closed = await page.evaluate(async () => (await fetch('/v1/account/close', { method: 'POST' })).status);
    expect(closed).toBe(200);
    expect((await context.cookies()).find((c) => c.name === 'svc_session')).toBeUndefined();
    const reopenLink = await server.linkMailedTo(server.ownerEmail, before);
    expect(reopenLink.startsWith(`${server.url}/reopen?token=`)).toBe(true);

    await page.goto(reopenLink);
    await page.getByRole('heading', { level: 1, name: 'Reopen the account' }).waitFor();
    await inspectPage(page, `${store}-link-reopen`);
    await pressWithKeyboard(page, server, 'Reopen the account and sign in');
    const account = await page.evaluate(async () => (await fetch('/v1/account')).json());
    expect(account).toMatchObject({ status: 'open', closedAt: null });

    // The same link again: a clear page, nothing set.
    await page.goto(reopenLink);
    await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Reopen the account and sign in' }).click()]);
    await page.getByRole('heading', { level: 1, name: 'This link was already used' }).waitFor();
    await inspectPage(page, `${store}-link-reopen-used`);
    expect(b.problems).toEqual([]);
  });
});
