import { machineFingerprint } from '@svc-licensing/cert-format';
import { describe, expect, it } from 'vitest';
import { inspectPage, skipBrowserTests, type BrowserSession } from '../support/browser.js';
import { STORE_KINDS } from '../support/stores.js';
import type { WebServer } from '../support/web-server.js';
import { useBrowserAndServer } from '../support/browser-server.js';

// Issue 25, item 6, in Chromium: the portal's license page lists the customer's machines without
// their fingerprints, in what it shows and in every answer it loads.
const skip = skipBrowserTests('security-portal-fingerprints');
const BUYER = 'fp-buyer@example.com';

describe.skipIf(skip).each(STORE_KINDS)('the portal license page on the %s store', { timeout: 120_000 }, (store) => {
  let b: BrowserSession;
  let server: WebServer;
  useBrowserAndServer(store, (opened) => ({ b, server } = opened));

  it('lists the machines by name, and no answer the page loads holds a fingerprint', async () => {
    const product = await server.api('POST', '/products', { name: 'Acme Editor', keyPrefix: 'ACME-' });
    const plan = await server.api('POST', `/products/${product.body.id}/plans`, { code: 'pro', name: 'Pro', kind: 'perpetual', maxActivations: 2 });
    const license = await server.api('POST', '/licenses', { plan: plan.body.id, email: BUYER, name: 'Ada Buyer' });
    const fp = machineFingerprint(product.body.id, `machine-${store}`);
    const activated = await fetch(`${server.url}/v1/licenses/activate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ product: product.body.id, key: license.body.key, fingerprint: fp, name: 'Ada laptop', platform: 'linux' }),
    });
    expect(activated.status).toBe(200);

    const page = b.page;
    const bodies: Promise<string>[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname.startsWith('/v1/portal/')) bodies.push(response.text().catch(() => ''));
    });
    const portal = `${server.url}/portal/${server.accountId}/`;
    await page.goto(portal);
    const before = server.smtp.messages.length;
    await page.getByLabel('E-mail address').fill(BUYER);
    await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
    await page.getByText('a sign-in link is on its way').waitFor();
    await page.goto(await server.linkMailedTo(BUYER, before));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(portal);
    await page.getByRole('link', { name: 'Acme Editor' }).click();
    await page.getByRole('table', { name: 'Machines using this license' }).getByText('Ada laptop', { exact: true }).waitFor();

    expect(await page.content()).not.toContain(fp);
    const loaded = await Promise.all(bodies);
    expect(loaded.some((text) => text.includes('Ada laptop'))).toBe(true);
    for (const text of loaded) expect(text).not.toContain(fp);
    await inspectPage(page, `${store}-security-portal-license`, { full: store === 'embedded' });
    expect(b.problems).toEqual([]);
  });
});
