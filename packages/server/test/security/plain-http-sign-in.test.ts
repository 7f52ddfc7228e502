import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, PUBLIC_ORIGIN } from '../support/harness.js';
import { STORE_KINDS } from '../support/stores.js';
import { openBrowser, screenshot, skipBrowserTests, type BrowserSession } from '../support/browser.js';
import { startWebServer, type WebServer } from '../support/web-server.js';

// Issue 25, item 7: an operator trying the server over plain http on a LAN name (not localhost)
// must be able to sign in. Chromium treats such an origin as not secure: it sends no Sec-Fetch-*
// headers, and a form posted from a page with `Referrer-Policy: no-referrer` carries `Origin: null`,
// which the same-origin rule rightly refuses. The pages must make Chromium send their real Origin,
// and the token in the link's URL must still never leave in a Referer.
const skip = skipBrowserTests('plain-http-sign-in');
/** A name Chromium maps to 127.0.0.1 (`--host-resolver-rules`) but treats as any LAN host. */
const LAN_HOST = 'licensing.lan.test';
/** Another site on the same LAN, trying login CSRF. */
const OTHER_HOST = 'other.lan.test';
const BUYER = 'buyer@example.com';

/**
 * Presses the link page's `button` and returns the headers of the POST it sent (as Chromium put
 * them on the wire) once its answer is in; the answer must be the sign-in's `303`.
 */
async function pressAndCapture(page: Page, button: string, path: string): Promise<Record<string, string>> {
  const answered = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === path);
  await page.getByRole('button', { name: button }).click();
  const response = await answered;
  const headers = await response.request().allHeaders();
  expect(response.status(), `the form's POST answered ${response.status()}; it sent Origin ${headers.origin}`).toBe(303);
  return headers;
}

/** A state-changing same-origin fetch from the page, as the dashboard and portal apps make them. */
async function postFromPage(page: Page, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  return page.evaluate(
    async ([url, json]) => {
      const res = await fetch(url, { method: 'POST', ...(json === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: json }) });
      return { status: res.status, body: await res.json() };
    },
    [path, body === undefined ? undefined : JSON.stringify(body)] as const,
  );
}

/** Serves one HTML page on 127.0.0.1 (another site, reached by its own name). */
async function serveOnce(html: string): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/**
 * The problems the page reported, less Chromium's notice that it ignores the apps'
 * `Cross-Origin-Opener-Policy` on an origin that is not potentially trustworthy: that is what plain
 * http on a LAN host is, and why this test exists.
 */
const problems = (b: BrowserSession) => b.problems.filter((p) => !p.includes('The Cross-Origin-Opener-Policy header has been ignored'));

describe.skipIf(skip).each(STORE_KINDS)('signing in over plain http on a LAN host name (%s store)', (store) => {
  let b: BrowserSession;
  let server: WebServer;

  beforeAll(async () => {
    const hostResolverRules = `MAP ${LAN_HOST} 127.0.0.1, MAP ${OTHER_HOST} 127.0.0.1`;
    [b, server] = await Promise.all([openBrowser({ hostResolverRules }), startWebServer(store, { publicHost: LAN_HOST })]);
  });
  afterAll(async () => {
    await b?.close();
    await server?.close();
  });

  it('a form on another site posting a valid link is still refused, with its Origin or with Origin: null, and uses nothing', async () => {
    const { page } = b;
    const link = await server.engine.issueSignInLink(server.accountId);
    for (const referrer of ['strict-origin-when-cross-origin', 'no-referrer']) {
      // The other site's page: a form with the token, posted to the sign-in link.
      const other = await serveOnce(
        '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
          `<meta name="referrer" content="${referrer}"><title>Win a prize</title></head><body>` +
          `<form method="post" action="${server.url}/sign-in"><input type="hidden" name="token" value="${link.token}">` +
          '<button type="submit">Claim</button></form></body></html>',
      );
      try {
        await page.goto(`http://${OTHER_HOST}:${other.port}/`);
        const answered = page.waitForResponse((r) => r.request().method() === 'POST' && r.url() === `${server.url}/sign-in`);
        await page.getByRole('button', { name: 'Claim' }).click();
        const response = await answered;
        const sent = await response.request().allHeaders();
        expect(sent.origin, referrer).toBe(referrer === 'no-referrer' ? 'null' : `http://${OTHER_HOST}:${other.port}`);
        expect(response.status(), referrer).toBe(403);
      } finally {
        await other.close();
      }
    }
    expect((await b.context.cookies()).find((c) => c.name === 'svc_session')).toBeUndefined();
    // The link was not used: its own page still signs in with it.
    await page.goto(`${server.url}/sign-in?token=${encodeURIComponent(link.token)}`);
    await pressAndCapture(page, 'Sign in', '/sign-in');
    await b.context.clearCookies();
  });

  it('the owner signs in from the e-mailed link, and the dashboard can then change things', async () => {
    const { page, context } = b;
    const before = server.smtp.messages.length;
    await page.goto(`${server.url}/dashboard/`);
    // What makes this host different from localhost for Chromium.
    expect(await page.evaluate(() => [window.isSecureContext, location.hostname])).toEqual([false, LAN_HOST]);
    await page.getByLabel('E-mail address').fill(server.ownerEmail);
    await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
    await page.getByText('a sign-in link is on its way').waitFor();
    const link = await server.linkMailedTo(server.ownerEmail, before);
    expect(link.startsWith(`${server.url}/sign-in?token=`)).toBe(true);

    await page.goto(link);
    const sent = await pressAndCapture(page, 'Sign in', '/sign-in');
    await page.waitForURL(`${server.url}/dashboard/`);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await screenshot(page, `${store}-lan-http-signed-in`);
    // The form carried the page's real origin, and no Referer holding the token.
    expect(sent.origin).toBe(server.url);
    expect(sent['sec-fetch-site']).toBeUndefined();
    expect(sent.referer ?? '').not.toContain('token');
    expect((await context.cookies()).find((c) => c.name === 'svc_session')).toMatchObject({ httpOnly: true, secure: false });

    // The dashboard's own state-changing requests are accepted too (same-origin rule, cookie session).
    const created = await postFromPage(page, '/v1/products', { name: 'LAN Editor', keyPrefix: 'LAN-' });
    expect(created).toMatchObject({ status: 201, body: { name: 'LAN Editor' } });
    expect(problems(b)).toEqual([]);
  });

  it('the owner of a closed account reopens it from the e-mailed reopen link', async () => {
    const { page } = b;
    const before = server.smtp.messages.length;
    expect((await postFromPage(page, '/v1/account/close')).status).toBe(200);
    const link = await server.linkMailedTo(server.ownerEmail, before);
    expect(link.startsWith(`${server.url}/reopen?token=`)).toBe(true);
    await page.goto(link);
    const sent = await pressAndCapture(page, 'Reopen the account and sign in', '/reopen');
    await page.waitForURL(`${server.url}/dashboard/`);
    expect(sent.origin).toBe(server.url);
    expect(sent.referer ?? '').not.toContain('token');
    expect(await page.evaluate(async () => (await (await fetch('/v1/account')).json()).status)).toBe('open');
    expect(problems(b)).toEqual([]);
  });

  it('a customer signs in to the portal from the e-mailed link and reveals the license key', async () => {
    const product = await server.engine.createProduct(server.accountId, { name: 'Acme Editor', keyPrefix: 'ACME-' });
    const plan = await server.engine.createPlan(server.accountId, product.id, { code: 'pro', name: 'Pro', kind: 'perpetual' });
    const { key } = (await server.engine.createLicense(server.accountId, { plan: plan.id, email: BUYER })).license;
    const portal = `${server.url}/portal/${server.accountId}/`;

    const page = await b.context.newPage();
    try {
      const before = server.smtp.messages.length;
      await page.goto(portal);
      await page.getByLabel('E-mail address').fill(BUYER);
      await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
      await page.getByText('a sign-in link is on its way').waitFor();
      const link = await server.linkMailedTo(BUYER, before);
      expect(link.startsWith(`${portal}sign-in?token=`)).toBe(true);
      await page.goto(link);
      const sent = await pressAndCapture(page, 'Sign in', `/portal/${server.accountId}/sign-in`);
      await page.waitForURL(portal);
      expect(sent.origin).toBe(server.url);
      expect(sent.referer ?? '').not.toContain('token');

      // The portal app's own POST (reveal the key) passes the same-origin rule.
      await page.getByRole('link', { name: 'Acme Editor' }).click();
      await page.getByRole('button', { name: 'Show the license key' }).click();
      await page.getByText(key).waitFor();
      await screenshot(page, `${store}-lan-http-portal-key`);
    } finally {
      await page.close();
    }
    expect(problems(b)).toEqual([]);
  });
});

describe.each(STORE_KINDS)('the link pages never take Origin: null as same-origin (node-server, %s)', (store) => {
  it('a POST with Origin: null and no Sec-Fetch-Site is refused on every link page, and the link still works after', async () => {
    const h = await createHarness({ mode: 'node-server', store });
    const product = await h.api('POST', '/products', { name: 'Editor', keyPrefix: 'ED-' });
    const plan = await h.api('POST', `/products/${product.body.id}/plans`, { code: 'pro', name: 'Pro', kind: 'perpetual' });
    expect((await h.api('POST', '/licenses', { plan: plan.body.id, email: BUYER })).status).toBe(201);
    const signIn = await h.engine.issueSignInLink(h.accountId);
    const portal = await h.engine.requestPortalLink(h.accountId, BUYER);
    const { reopenLink } = await h.engine.closeAccount((await h.newAccount()).accountId);
    const links = [
      `/sign-in?token=${encodeURIComponent(signIn.token)}`,
      `/reopen?token=${encodeURIComponent(reopenLink!.token)}`,
      `/portal/${h.accountId}/sign-in?token=${encodeURIComponent(portal!.token)}`,
    ];
    for (const path of links) {
      const refused = await h.fetch(path, { method: 'POST', headers: { origin: 'null' }, redirect: 'manual' });
      expect(refused.status, path).toBe(403);
      expect(refused.headers.get('set-cookie'), path).toBeNull();
    }
    for (const path of links) {
      expect((await h.fetch(path, { method: 'POST', headers: { origin: PUBLIC_ORIGIN }, redirect: 'manual' })).status, path).toBe(303);
    }
  });
});
