import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../support/stores.js';
import { inspectPage, skipBrowserTests, type BrowserSession } from '../support/browser.js';
import type { WebServer } from '../support/web-server.js';
import { useBrowserAndServer } from '../support/browser-server.js';
import { openDashboardPage, signInToDashboard } from '../support/dashboard.js';

// "Send the key again" on a license's page, in real Chromium against a real server on each store:
// a click and the keyboard each e-mail the key through a real SMTP conversation (the server's
// capturing SMTP server); the outcome lands in a live region that was on the page before the press
// (so a screen reader announces it); a refused or failed send shows the API's own message and
// sends nothing: a revoked license (409), an SMTP server refusing the recipient (500), and the hourly
// budget of key e-mails of the service plan used up (429).
const skip = skipBrowserTests('web-send-key-again');

const CUSTOMER = 'ada@customer.test';

async function ok<T = any>(answer: Promise<{ status: number; body: T }>): Promise<T> {
  const { status, body } = await answer;
  expect(status, JSON.stringify(body)).toBeLessThan(300);
  return body;
}

/** A vendor API call with another account's API key (the server's `api` uses the first account's). */
async function apiAs(server: WebServer, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

/**
 * Marks the page's live regions (role status or alert, or aria-live) as present now. A message put
 * in a region that was already there is announced; a region inserted together with its message
 * often is not (the contract of the app's `Alert`: always rendered).
 */
async function markLiveRegions(page: Page): Promise<void> {
  await page.evaluate(() => {
    for (const el of Array.from(document.querySelectorAll('[role=status], [role=alert], [aria-live]'))) el.setAttribute('data-test-live-before', '');
  });
}

/** The role of the live region holding `text`, and whether that region was marked by `markLiveRegions`. */
async function liveRegionOf(page: Page, text: string): Promise<{ role: string | null; markedBefore: boolean }> {
  const holder = page.locator('[role=status], [role=alert], [aria-live]').filter({ hasText: text });
  await holder.waitFor();
  return holder.evaluate((el) => ({ role: el.getAttribute('role'), markedBefore: el.hasAttribute('data-test-live-before') }));
}

/**
 * Waits until the reloaded license page has opened: its heading is shown with the license's name
 * and has the focus, as a page opened from nothing gives it (an effect after the render), so the
 * test's Tabs start from the heading as a user's would.
 */
async function licensePageOpened(page: Page): Promise<void> {
  await page.getByRole('heading', { level: 1, name: 'License of Ada Customer' }).waitFor();
  await page.waitForFunction(() => document.activeElement?.tagName === 'H1' && document.activeElement.textContent === 'License of Ada Customer');
}

/** Presses Tab until the focused element is the button `name` (at most 60 times), as a keyboard user would. */
async function tabTo(page: Page, name: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => (document.activeElement?.tagName === 'BUTTON' ? document.activeElement.textContent?.trim() : null));
    if (focused === name) return;
  }
  throw new Error(`Tab never reached the button ${name}`);
}

/** The text of the focused element when it is a button, else null. */
async function focusedButton(page: Page): Promise<string | null> {
  return page.evaluate(() => (document.activeElement?.tagName === 'BUTTON' ? document.activeElement.textContent?.trim() ?? '' : null));
}

/**
 * The page's message regions (role status or alert), each with whether Chromium's accessibility
 * tree (the tree a screen reader reads) has it, not ignored, with that role; and whether it is empty.
 */
async function liveRegionsInTree(page: Page): Promise<{ region: string; empty: boolean; inTree: boolean }[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: { ignored: boolean; role?: { value?: string }; backendDOMNodeId?: number }[] };
    const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
    const { nodeIds } = await cdp.send('DOM.querySelectorAll', { nodeId: root.nodeId, selector: '[role=status], [role=alert]' });
    const found: { region: string; empty: boolean; inTree: boolean }[] = [];
    for (const nodeId of nodeIds) {
      const { node } = await cdp.send('DOM.describeNode', { nodeId });
      const { outerHTML } = await cdp.send('DOM.getOuterHTML', { nodeId });
      const attributes = node.attributes ?? [];
      const role = attributes[attributes.indexOf('role') + 1];
      const ax = nodes.find((n) => n.backendDOMNodeId === node.backendNodeId);
      found.push({ region: outerHTML.slice(0, 80), empty: (node.childNodeCount ?? 0) === 0, inTree: ax !== undefined && !ax.ignored && ax.role?.value === role });
    }
    return found;
  } finally {
    await cdp.detach();
  }
}

/** Waits until the send-key button is usable again (its request answered). */
async function sendFinished(page: Page): Promise<void> {
  await page.locator('button:not([disabled]):not([aria-busy])', { hasText: 'Send the key again' }).waitFor();
}

describe.skipIf(skip).each(STORE_KINDS)('"Send the key again" on the %s store', { timeout: 120_000 }, (store) => {
  const full = store === STORE_KINDS[0];
  let b: BrowserSession;
  let server: WebServer;
  let page: Page;
  let license: { id: string; key: string };
  let planId = '';

  useBrowserAndServer(store, async (opened) => {
    ({ b, server } = opened);
    page = b.page;
    const product = await ok(server.api('POST', '/products', { name: 'Acme Editor', keyPrefix: 'ACME-' }));
    const plan = await ok(server.api('POST', `/products/${product.id}/plans`, { code: 'pro', name: 'Pro', kind: 'perpetual' }));
    planId = plan.id;
    license = await ok(server.api('POST', '/licenses', { plan: plan.id, email: CUSTOMER, name: 'Ada Customer' }));
    await signInToDashboard(page, server, { open: [`licenses/${license.id}`, 'License of Ada Customer'] });
  });

  it('a click e-mails the key to the customer over SMTP and says so in a live region; Enter and Space on the focused button do the same', async () => {
    expect(license.key).toMatch(/^ACME-/);
    const before = server.smtp.messages.length;
    await markLiveRegions(page);
    await page.getByRole('button', { name: 'Send the key again' }).click();
    const sentText = `The key was e-mailed again to ${CUSTOMER}.`;
    expect(await liveRegionOf(page, sentText)).toEqual({ role: 'status', markedBefore: true });

    const [mail] = (await server.smtp.waitFor(before + 1)).slice(before);
    expect(mail!.envelope.to).toEqual([CUSTOMER]);
    expect(mail!.mail.subject).toBe('Your license key for Acme Editor');
    expect(mail!.mail.text).toContain('Hello Ada Customer,');
    expect(mail!.mail.text).toContain(license.key);
    expect(mail!.mail.html).toContain(license.key);
    // The message links to the customer portal the e-mail links to (the service-hosted one here).
    const portal = await page.getByRole('status').filter({ hasText: sentText }).getByRole('link', { name: 'customer portal' }).getAttribute('href');
    expect(portal).toBe(`${server.url}/portal/${server.accountId}/`);
    expect(mail!.mail.text).toContain(portal);
    // The key the page shows is the key that was e-mailed.
    await page.getByRole('region', { name: 'License', exact: true }).getByText(license.key).waitFor();
    await inspectPage(page, `${store}-license-send-key-sent`, { full });

    // The keyboard: Tab to the button, then Enter; then Space on the focused button. One more e-mail each.
    await page.reload();
    await licensePageOpened(page);
    await markLiveRegions(page);
    await tabTo(page, 'Send the key again');
    await page.keyboard.press('Enter');
    const [byEnter] = (await server.smtp.waitFor(before + 2)).slice(before + 1);
    expect(byEnter!.envelope.to).toEqual([CUSTOMER]);
    expect(byEnter!.mail.text).toContain(license.key);
    expect(await liveRegionOf(page, sentText)).toEqual({ role: 'status', markedBefore: true });
    await sendFinished(page);
    // The focus stayed on the button through the send (a busy button is not disabled): Space on it now.
    expect(await focusedButton(page)).toBe('Send the key again');
    await page.keyboard.press('Space');
    const [bySpace] = (await server.smtp.waitFor(before + 3)).slice(before + 2);
    expect(bySpace!.mail.text).toContain(license.key);
    await sendFinished(page);
    expect(server.smtp.messages).toHaveLength(before + 3);
    expect(b.problems).toEqual([]);
  });

  it('the empty message regions are in the accessibility tree before any press, and take no room on the page', async () => {
    await page.reload();
    await licensePageOpened(page);
    const regions = await liveRegionsInTree(page);
    // Every region, empty or not, is in the tree; among them the send's two (its success and its failure), empty.
    expect(regions.filter((r) => r.empty).length).toBeGreaterThanOrEqual(2);
    expect(regions.filter((r) => !r.inTree)).toEqual([]);
    // The empty message boxes (and the copy status beside an ID) take no room: out of the flow, 1 px at most.
    const empty = await page.locator('.alert-slot, .id-copy .copy-status:empty').evaluateAll((els) =>
      els.map((el) => {
        const style = getComputedStyle(el);
        const box = el.getBoundingClientRect();
        return { display: style.display, visibility: style.visibility, outOfFlow: style.position === 'absolute', tiny: box.width <= 1 && box.height <= 1 };
      }),
    );
    expect(empty.length).toBeGreaterThanOrEqual(3);
    for (const r of empty) expect(r).toEqual({ display: 'block', visibility: 'visible', outOfFlow: true, tiny: true });
    await inspectPage(page, `${store}-license-send-key-before`, { full });
    expect(b.problems).toEqual([]);
  });

  it('the focus stays on the button while it sends, and a second press while it is busy sends nothing more', async () => {
    await page.reload();
    await licensePageOpened(page);
    const sends: string[] = [];
    const onRequest = (request: { method(): string; url(): string }) => {
      if (request.method() === 'POST' && request.url().endsWith(`/licenses/${license.id}/send-key`)) sends.push(request.url());
    };
    page.on('request', onRequest);
    try {
      const before = server.smtp.messages.length;
      const button = page.getByRole('button', { name: 'Send the key again' });
      // The SMTP server holds the message, so the send stays busy until released.
      const held = server.smtp.hold();
      await tabTo(page, 'Send the key again');
      await page.keyboard.press('Enter');
      await held.arrived;
      const state = () =>
        button.evaluate((el) => ({
          busy: el.getAttribute('aria-busy'),
          ariaDisabled: el.getAttribute('aria-disabled'),
          disabled: (el as HTMLButtonElement).disabled,
          focused: document.activeElement === el,
        }));
      expect(await state()).toEqual({ busy: 'true', ariaDisabled: 'true', disabled: false, focused: true });
      // Pressed again while busy, by Enter and by Space: ignored.
      await page.keyboard.press('Enter');
      await page.keyboard.press('Space');
      expect(await state()).toEqual({ busy: 'true', ariaDisabled: 'true', disabled: false, focused: true });
      held.release();
      await sendFinished(page);
      expect(await state()).toEqual({ busy: null, ariaDisabled: null, disabled: false, focused: true });
      await server.smtp.waitFor(before + 1);
      expect(sends).toHaveLength(1);
      expect(server.smtp.messages).toHaveLength(before + 1);
      // Tab goes on from the button (to Revoke), not from the top of the page.
      await page.keyboard.press('Tab');
      expect(await focusedButton(page)).toBe('Revoke');

      // Two clicks in the same moment (before the page has re-rendered as busy): one send.
      await button.evaluate((el) => {
        (el as HTMLButtonElement).click();
        (el as HTMLButtonElement).click();
      });
      await server.smtp.waitFor(before + 2);
      await sendFinished(page);
      expect(sends).toHaveLength(2);
      expect(server.smtp.messages).toHaveLength(before + 2);
    } finally {
      page.off('request', onRequest);
    }
    expect(b.problems).toEqual([]);
  });

  it('a send the SMTP server refuses shows the API\'s failure in an alert, not a success, and the next press sends', async () => {
    await page.reload();
    await licensePageOpened(page);
    const before = server.smtp.messages.length;
    server.smtp.refuse = true;
    try {
      await markLiveRegions(page);
      await page.getByRole('button', { name: 'Send the key again' }).click();
      await sendFinished(page);
      // The API's answer to the same request while the SMTP server still refuses.
      const failed = await server.api('POST', `/licenses/${license.id}/send-key`);
      expect(failed.status).toBe(500);
      expect(failed.body.error.code).toBe('internal_error');
      expect(await liveRegionOf(page, failed.body.error.message)).toEqual({ role: 'alert', markedBefore: true });
      expect(await page.getByText('The key was e-mailed again').count()).toBe(0);
      expect(server.smtp.messages).toHaveLength(before);
    } finally {
      server.smtp.refuse = false;
    }
    // Chromium logs the refused call itself (a 500): that one line, nothing else.
    expect(b.problems).toEqual([expect.stringMatching(/^console: Failed to load resource: the server responded with a status of 500/)]);
    b.problems.splice(0);
    // The reservation was released: the next press sends, and the failure gives way to the success.
    await page.getByRole('button', { name: 'Send the key again' }).click();
    await server.smtp.waitFor(before + 1);
    await page.getByRole('status').filter({ hasText: `The key was e-mailed again to ${CUSTOMER}.` }).waitFor();
    expect(await page.getByRole('alert').filter({ hasText: 'retry later' }).count()).toBe(0);
    expect(b.problems).toEqual([]);
  });

  it('a license revoked meanwhile (another tab) is refused with the API\'s message and nothing is sent', async () => {
    const other = await ok(server.api('POST', '/licenses', { plan: planId, email: 'bo@customer.test', name: 'Bo Customer' }));
    await openDashboardPage(page, server.url, `licenses/${other.id}`, 'License of Bo Customer');
    await ok(server.api('POST', `/licenses/${other.id}/revoke`));
    const before = server.smtp.messages.length;
    await markLiveRegions(page);
    await page.getByRole('button', { name: 'Send the key again' }).click();
    await sendFinished(page);
    // The API's answer to the same request, which the page must show as it is.
    const refused = await server.api('POST', `/licenses/${other.id}/send-key`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    expect(await liveRegionOf(page, refused.body.error.message)).toEqual({ role: 'alert', markedBefore: true });
    expect(await page.getByText('The key was e-mailed again').count()).toBe(0);
    expect(server.smtp.messages).toHaveLength(before);
    // Opened afresh, a revoked license offers no send at all.
    await page.reload();
    await page.getByText('A revoked license is final').waitFor();
    expect(await page.getByRole('button', { name: 'Send the key again' }).count()).toBe(0);
    expect(b.problems).toEqual([]);
  });

  it("over the service plan's hourly budget of key e-mails the press is refused with the API's message and nothing is sent", async () => {
    // An account on the free plan, whose hourly budget of key e-mails is finite.
    const ownerEmail = `small-${store}@vendor.test`;
    const { account, apiKey } = await server.engine.createAccount({ name: 'Small Shop', ownerEmail, servicePlan: 'free' });
    const as = (method: string, path: string, body?: unknown) => apiAs(server, apiKey.key, method, path, body);
    const product = await ok(as('POST', '/products', { name: 'Small Tool', keyPrefix: 'SMALL-' }));
    const plan = await ok(as('POST', `/products/${product.id}/plans`, { code: 'basic', kind: 'perpetual' }));
    const small = await ok(as('POST', '/licenses', { plan: plan.id, email: 'cy@customer.test', name: 'Cy Customer' }));
    await signInToDashboard(page, server, { accountId: account.id, email: ownerEmail, fresh: true, open: [`licenses/${small.id}`, 'License of Cy Customer'] });

    // The budget spent through the API: each send a real e-mail, until the API refuses.
    const start = server.smtp.messages.length;
    let sent = 0;
    for (; sent < 1000; sent++) {
      const answer = await as('POST', `/licenses/${small.id}/send-key`);
      if (answer.status === 429) break;
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    }
    expect(sent).toBeGreaterThan(0);
    await server.smtp.waitFor(start + sent);
    expect(server.smtp.messages.slice(start).every((m) => m.envelope.to[0] === 'cy@customer.test' && (m.mail.text ?? '').includes(small.key))).toBe(true);

    await markLiveRegions(page);
    await page.getByRole('button', { name: 'Send the key again' }).click();
    await sendFinished(page);
    const refused = await as('POST', `/licenses/${small.id}/send-key`);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(await liveRegionOf(page, refused.body.error.message)).toEqual({ role: 'alert', markedBefore: true });
    expect(await page.getByText('The key was e-mailed again').count()).toBe(0);
    expect(server.smtp.messages).toHaveLength(start + sent);
    await inspectPage(page, `${store}-license-send-key-refused`, { full });
    expect(b.problems).toEqual([]);
  });
});
