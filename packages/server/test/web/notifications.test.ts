import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signProviderB } from '@svc-licensing/provider-webhooks';
import { readFixture } from '../../../../fixtures/index.js';
import { startReceiver, type Receiver } from '../notifications/support/receiver.js';
import { STORE_KINDS } from '../support/stores.js';
import { inspectPage, openBrowser, skipBrowserTests, VIEWPORTS, type BrowserSession } from '../support/browser.js';
import { startWebServer, type WebServer } from '../support/web-server.js';
import { openDashboardPage, signInToDashboard } from '../support/dashboard.js';

// The notification pages of the dashboard (issue 28) in real Chromium against a real server with
// its dispatcher running, on each store: the owner registers an endpoint at a real receiver on this
// machine (allowed as `--notify-allow 127.0.0.1` allows it), which verifies every delivery with the
// standardwebhooks package; a member reads the same pages without their controls; a provider's
// delivery signed with a wrong secret shows in the integration's incoming log with its reason.
const skip = skipBrowserTests('web-notifications');

async function ok<T = any>(answer: Promise<{ status: number; body: T }>): Promise<T> {
  const { status, body } = await answer;
  expect(status, JSON.stringify(body)).toBeLessThan(300);
  return body;
}

/** Presses Tab until the focused element is `name`'s button (at most 40 times), as a keyboard user would. */
async function tabTo(page: Page, name: string): Promise<void> {
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => (document.activeElement?.tagName === 'BUTTON' ? document.activeElement.textContent?.trim() : null));
    if (focused === name) return;
  }
  throw new Error(`Tab never reached the button ${name}`);
}

describe.skipIf(skip).each(STORE_KINDS)('the notification pages on the %s store', { timeout: 120_000 }, (store) => {
  const full = store === STORE_KINDS[0];
  let b: BrowserSession;
  let server: WebServer;
  let receiver: Receiver;
  let page: Page;
  let endpointId = '';
  let secret = '';

  beforeAll(async () => {
    [b, server, receiver] = await Promise.all([openBrowser(), startWebServer(store, { notifyAllow: ['127.0.0.1'] }), startReceiver(null)]);
    page = b.page;
    await signInToDashboard(page, server);
  });
  afterAll(async () => {
    await b?.close();
    await server?.close();
    await receiver?.close();
  });

  it('registers an endpoint with the keyboard, shows its secret once with a copy button, and lists it', async () => {
    await openDashboardPage(page, server.url, 'webhook-endpoints', 'Notifications');
    await page.getByText('No endpoint yet').waitFor();
    const form = page.getByRole('form', { name: 'Register an endpoint' });
    await form.getByLabel('URL').focus();
    await page.keyboard.type(receiver.url('/hooks/licensing'));
    await page.keyboard.press('Tab');
    await page.keyboard.type('billing backend');
    await page.keyboard.press('Tab'); // "Every event" checkbox
    await page.keyboard.press('Space'); // unticked: the event types appear
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space'); // license.created
    await tabTo(page, 'Register the endpoint');
    await page.keyboard.press('Enter');

    const shown = page.getByRole('region', { name: 'The signing secret' });
    await shown.getByText('this is the only time it is shown').waitFor();
    secret = (await shown.locator('code.mono').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await shown.getByRole('button', { name: 'Copy signing secret' }).click();
    await shown.getByText('Copied').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    receiver.secrets.push(secret);

    const [endpoint] = (await ok(server.api('GET', '/webhook-endpoints'))).data;
    expect(endpoint).toMatchObject({ url: receiver.url('/hooks/licensing'), description: 'billing backend', events: ['license.created'], enabled: true });
    expect(JSON.stringify(endpoint)).not.toContain(secret);
    endpointId = endpoint.id;
    const row = page.getByRole('row').filter({ hasText: 'billing backend' });
    await row.getByText('license.created').waitFor();
    await row.getByText('enabled').waitFor();
    await inspectPage(page, `${store}-notifications-created`, { full });

    // The secret is not shown again.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Notifications' }).waitFor();
    await page.getByRole('row').filter({ hasText: 'billing backend' }).waitFor();
    expect(await page.content()).not.toContain(secret);
    expect(b.problems).toEqual([]);
  });

  it('sends a test event that the receiver verifies, logs a failed delivery with its status, latency and next retry, and sends it again', async () => {
    await page.getByRole('link', { name: receiver.url('/hooks/licensing') }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook endpoint' }).waitFor();
    await page.getByText('Nothing was sent to this endpoint').waitFor();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByText('A test event is on its way').waitFor();
    const log = page.getByRole('region', { name: 'Delivery log' });
    const testRow = log.getByRole('row').filter({ hasText: 'webhook_endpoint.test' });
    await testRow.getByText('delivered').waitFor({ timeout: 20_000 });
    await testRow.getByText(/· 204 ·/).waitFor();
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.verifiedWith).toEqual([secret]);
    expect(receiver.received[0]!.payload).toMatchObject({ type: 'webhook_endpoint.test' });

    // The receiver fails: a license created now is logged with the 500, its latency and the next retry.
    receiver.handle = (_request, response) => void response.writeHead(500).end('database down');
    const product = await ok(server.api('POST', '/products', { name: 'Acme Editor', keyPrefix: 'ACME-' }));
    const plan = await ok(server.api('POST', `/products/${product.id}/plans`, { code: 'pro', kind: 'perpetual' }));
    const license = await ok(server.api('POST', '/licenses', { plan: plan.id, email: 'jo@customer.test', name: 'Jo Customer' }));
    const failed = log.getByRole('row').filter({ hasText: 'license.created' });
    // The log asks again by itself only while one of its notifications is pending: the vendor refreshes it.
    for (let i = 0; i < 100 && (await failed.getByText(/· 500 ·/).count()) === 0; i++) {
      await log.getByRole('button', { name: 'Refresh the log' }).click();
      await page.waitForTimeout(200);
    }
    await failed.getByText('pending').waitFor();
    await failed.getByText(/· 500 · \d+ ms/).waitFor();
    await failed.getByText('Your answer').first().click();
    await failed.getByText('database down').first().waitFor();
    expect(await failed.locator('td[data-label="Next retry"] time').count()).toBe(1);
    await inspectPage(page, `${store}-notifications-delivery-log`, { full });

    // Back up: "Send again" delivers it with the same webhook-id and body.
    receiver.handle = (_request, response) => void response.writeHead(204).end();
    const sendAgain = failed.getByRole('button', { name: /^Send again/ });
    await sendAgain.focus();
    await page.keyboard.press('Enter');
    await page.getByText('is being sent again').waitFor();
    await failed.getByText('delivered').waitFor({ timeout: 20_000 });
    const created = receiver.received.filter((r) => (r.payload as { type?: string } | null)?.type === 'license.created');
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(created.every((r) => r.verifiedWith.length === 1 && r.headers['webhook-id'] === created[0]!.headers['webhook-id'])).toBe(true);
    expect((created[0]!.payload as { data: { id: string } }).data.id).toBe(license.id);
    const failedAttempts = receiver.received.filter((r) => r.headers['webhook-id'] === created[0]!.headers['webhook-id']);
    expect(failedAttempts.length).toBeGreaterThanOrEqual(2); // the refused one and the one sent again
    expect(b.problems).toEqual([]);
  });

  it('changes the events and disables the endpoint, rotates the secret (both sign for a day) and deletes the endpoint', async () => {
    const form = page.getByRole('form', { name: 'Change the endpoint' });
    await form.getByLabel(/^activation\.created/).check();
    await form.getByLabel('Enabled', { exact: true }).uncheck();
    await form.getByRole('button', { name: 'Save the endpoint' }).click();
    await page.getByText('The endpoint is saved.').waitFor();
    expect(await ok(server.api('GET', `/webhook-endpoints/${endpointId}`))).toMatchObject({ events: ['license.created', 'activation.created'], enabled: false, disabledReason: null });
    await page.getByRole('region', { name: 'Endpoint' }).getByText('disabled', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Send a test event' }).isDisabled()).toBe(true);
    await form.getByLabel('Enabled', { exact: true }).check();
    await form.getByRole('button', { name: 'Save the endpoint' }).click();
    await page.getByRole('region', { name: 'Endpoint' }).getByText('enabled', { exact: true }).waitFor();

    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await dialog.getByRole('button', { name: 'Rotate the secret' }).click();
    const shown = page.getByRole('region', { name: 'The signing secret' });
    await shown.getByText('keeps signing beside it for 24 hours').waitFor();
    const rotated = (await shown.locator('code.mono').textContent()) ?? '';
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await page.getByText('signs too until').waitFor();
    receiver.secrets.push(rotated);
    const before = receiver.received.length;
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByRole('region', { name: 'Delivery log' }).getByRole('row').filter({ hasText: 'webhook_endpoint.test' }).first().waitFor();
    const isTest = (r: (typeof receiver.received)[number]) => (r.payload as { type?: string } | null)?.type === 'webhook_endpoint.test';
    for (let i = 0; i < 200 && !receiver.received.slice(before).some(isTest); i++) await new Promise((r) => setTimeout(r, 50));
    expect(receiver.received.slice(before).find(isTest)?.verifiedWith).toEqual([secret, rotated]);
    await inspectPage(page, `${store}-notifications-endpoint`, { full });

    // Delete, from the keyboard: the dialog takes focus, Escape cancels, Enter on its button confirms.
    await page.getByRole('button', { name: 'Delete the endpoint' }).focus();
    await page.keyboard.press('Enter');
    const confirm = page.getByRole('dialog', { name: 'Delete this endpoint?' });
    await confirm.waitFor();
    // Closed and asked open again before the close's event arrives (Chromium runs input first, so a
    // quick Escape then Enter does this): the dialog opens again instead of staying shut.
    await page.evaluate(() => {
      document.querySelector<HTMLDialogElement>('dialog[open]')!.close();
      Array.from(document.querySelectorAll('button')).find((button) => button.textContent === 'Delete the endpoint')!.click();
    });
    await confirm.getByRole('button', { name: 'Delete' }).waitFor({ timeout: 5000 });
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Delete the endpoint');
    await page.keyboard.press('Enter');
    await confirm.getByRole('button', { name: 'Delete' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Notifications' }).waitFor();
    await page.getByText('No endpoint yet').waitFor();
    expect((await ok(server.api('GET', '/webhook-endpoints'))).data).toEqual([]);
    expect(b.problems).toEqual([]);
  });

  describe('a member', () => {
    let context: BrowserContext;
    let member: Page;
    beforeAll(async () => {
      context = await b.browser.newContext({ viewport: VIEWPORTS.desktop, locale: 'en-GB' });
      member = await context.newPage();
    });
    afterAll(async () => {
      await context?.close();
    });

    it('reads the endpoints and their delivery log without the controls that change them', async () => {
      const endpoint = await ok(server.api('POST', '/webhook-endpoints', { url: receiver.url('/hooks/member-view'), description: 'audit copy' }));
      await ok(server.api('POST', `/webhook-endpoints/${endpoint.id}/test`));
      const email = `member-${store}@vendor.test`;
      await server.engine.addMember(server.accountId, { email });
      await signInToDashboard(member, server, { email });
      await openDashboardPage(member, server.url, 'webhook-endpoints', 'Notifications');
      await member.getByText('Only the account owner can register, change or delete endpoints').waitFor();
      await member.getByRole('row').filter({ hasText: 'audit copy' }).waitFor();
      expect(await member.getByRole('region', { name: 'Register an endpoint' }).count()).toBe(0);
      await member.getByRole('link', { name: receiver.url('/hooks/member-view') }).click();
      await member.getByRole('heading', { level: 1, name: 'Webhook endpoint' }).waitFor();
      await member.getByRole('region', { name: 'Delivery log' }).getByText('webhook_endpoint.test').waitFor();
      for (const name of ['Send a test event', 'Rotate the secret', 'Delete the endpoint', 'Save the endpoint']) {
        expect(await member.getByRole('button', { name }).count(), name).toBe(0);
      }
      expect(await member.getByRole('button', { name: /^Send again/ }).count()).toBe(0);
      await inspectPage(member, `${store}-notifications-member`, { full });
    });
  });

  it('shows an integration\'s incoming deliveries, a wrong-secret one as a signature mismatch', async () => {
    const product = await ok(server.api('POST', '/products', { name: 'Acme Sketch', keyPrefix: 'SKETCH-' }));
    await ok(server.api('POST', `/products/${product.id}/plans`, { code: 'pro', kind: 'subscription' }));
    const integration = await ok(server.api('POST', '/integrations', { provider: 'provider_b', product: product.id, priceMap: { '418830': 'pro' }, webhookSecret: 'the-right-secret' }));
    const raw = readFixture('provider_b', 'subscription_created');
    const deliver = (secretUsed: string) =>
      fetch(integration.webhookUrl.replace(/^https?:\/\/[^/]+/, server.url), { method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': signProviderB(raw, secretUsed) }, body: raw });
    expect((await deliver('an-old-secret')).status).toBe(401);
    expect((await deliver('the-right-secret')).status).toBe(200);

    await openDashboardPage(page, server.url, 'integrations', 'Integrations');
    await page.getByRole('region', { name: 'provider_b · Acme Sketch · live' }).getByRole('link', { name: 'Incoming deliveries' }).click();
    await page.getByRole('heading', { level: 1, name: 'Incoming deliveries' }).waitFor();
    const refused = page.getByRole('row').filter({ hasText: 'refused' });
    await refused.getByText('Signature mismatch: it was not signed with the secret saved here').waitFor();
    await refused.getByText('HTTP 401').waitFor();
    const processed = page.getByRole('row').filter({ hasText: 'processed' });
    await processed.getByText('subscription_created', { exact: true }).waitFor();
    await inspectPage(page, `${store}-notifications-incoming`, { full });
    expect(b.problems).toEqual([]);
  });
});
