import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { INITIAL_ACCOUNT_PLACEHOLDERS } from '../../src/initial-account.js';
import { STORE_KINDS } from '../support/stores.js';
import { inspectPage, skipBrowserTests, type BrowserSession } from '../support/browser.js';
import type { WebServer } from '../support/web-server.js';
import { useBrowserAndServer } from '../support/browser-server.js';
import { signInToDashboard } from '../support/dashboard.js';

// A vendor setting up (issue 26), in real Chromium against a real server on each store: an account
// that still has the first start's placeholders is asked for its name and owner address on the
// overview, and an integration that cannot work as set up says so on the integrations page.
const skip = skipBrowserTests('web-vendor-setup');

async function ok<T = any>(answer: Promise<{ status: number; body: T }>): Promise<T> {
  const { status, body } = await answer;
  expect(status, JSON.stringify(body)).toBeLessThan(300);
  return body;
}

describe.skipIf(skip).each(STORE_KINDS)('setting up a vendor account in the dashboard, on the %s store', { timeout: 120_000 }, (store) => {
  let b: BrowserSession;
  let server: WebServer;
  let page: Page;

  useBrowserAndServer(store, async (opened) => {
    ({ b, server } = opened);
    page = b.page;
    await signInToDashboard(page, server);
  });

  it('asks an account that still has the first start\'s placeholders for its name and owner address, and stops once both are set', async () => {
    // A named account is not asked.
    await page.goto(`${server.url}/dashboard/#/`);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByText('Account Acme Software').waitFor();
    expect(await page.getByRole('region', { name: 'Name your account' }).count()).toBe(0);

    const { account } = await server.engine.createAccount({ ...INITIAL_ACCOUNT_PLACEHOLDERS, servicePlan: 'unlimited' });
    await signInToDashboard(page, server, { accountId: account.id });
    const prompt = page.getByRole('region', { name: 'Name your account' });
    await prompt.waitFor();
    expect(await prompt.textContent()).toContain('owner@example.com, which nobody reads');
    await inspectPage(page, `${store}-name-your-account`);

    const before = server.smtp.messages.length;
    await prompt.getByLabel('Account name').fill('Acme Tools');
    await prompt.getByLabel('Owner e-mail address').fill('ada@acme-tools.test');
    await prompt.getByRole('button', { name: 'Save' }).click();
    await prompt.getByText('A confirmation link is on its way to ada@acme-tools.test').waitFor();
    await page.getByText('Account Acme Tools').waitFor();
    expect((await server.engine.getAccount(account.id)).ownerEmail).toBe(INITIAL_ACCOUNT_PLACEHOLDERS.ownerEmail);

    // The link e-mailed to the new address makes it the owner's; the session carries over.
    let link: string | undefined;
    for (let i = 0; i < 100 && link === undefined; i++) {
      const mail = server.smtp.messages.slice(before).find((m) => m.envelope.to.includes('ada@acme-tools.test'));
      link = /https?:\/\/\S+\/confirm-owner-email\?token=[\w%.-]+/.exec(mail?.mail.text ?? '')?.[0];
      if (link === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    expect(link).toBeDefined();
    await page.goto(link!);
    await page.getByRole('button', { name: 'Confirm the new address' }).click();
    await page.getByRole('heading', { level: 1, name: 'The owner address is changed' }).waitFor();
    await page.goto(`${server.url}/dashboard/#/`);
    await page.getByText('ada@acme-tools.test · owner').waitFor();
    await page.getByText('Account Acme Tools').waitFor();
    expect(await page.getByRole('region', { name: 'Name your account' }).count()).toBe(0);
    expect(b.problems).toEqual([]);
    await signInToDashboard(page, server);
  });

  it('shows on the integrations page a provider_a API key this server cannot use, and nothing on one that works', async () => {
    const product = await ok(server.api('POST', '/products', { name: 'Acme Editor', keyPrefix: 'ACME-' }));
    // This server has no provider_a API address: a saved API key is never used.
    const withKey = await ok(server.api('POST', '/integrations', { provider: 'provider_a', product: product.id, environment: 'sandbox', apiKey: 'pdl_sandbox_key' }));
    await ok(server.api('POST', '/integrations', { provider: 'provider_b', product: product.id, webhookSecret: 'whsec' }));
    await page.goto(`${server.url}/dashboard/#/integrations`);
    await page.getByRole('heading', { level: 1, name: 'Integrations' }).waitFor();
    const card = page.getByRole('region', { name: 'provider_a · Acme Editor · sandbox' });
    await card.getByText('This integration needs attention').waitFor();
    await expect(card.getByRole('status').filter({ hasText: 'needs attention' }).textContent()).resolves.toContain('--provider-a-api-url-sandbox');
    const other = page.getByRole('region', { name: 'provider_b · Acme Editor · live' });
    expect(await other.getByText('needs attention').count()).toBe(0);
    await inspectPage(page, `${store}-integration-warning`);
    expect(b.problems).toEqual([]);

    // Removing the key removes the warning.
    await ok(server.api('PATCH', `/integrations/${withKey.id}`, { apiKey: null }));
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Integrations' }).waitFor();
    await card.getByText('Webhook URL').waitFor();
    expect(await page.getByText('needs attention').count()).toBe(0);
  });
});
