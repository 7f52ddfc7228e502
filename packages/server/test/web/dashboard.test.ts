import { createLicenseClient, createMemoryStorage } from '@svc-licensing/verifier';
import type { BrowserContext, Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../support/stores.js';
import { inspectPage, layoutShift, layoutShifts, skipBrowserTests, type BrowserSession } from '../support/browser.js';
import type { WebServer } from '../support/web-server.js';
import { useBrowserAndServer } from '../support/browser-server.js';
import { openDashboardPage as open } from '../support/dashboard.js';

// The vendor dashboard in real Chromium against a real server, on each store: one browser for the
// file, one page per person, reused from step to step.
const skip = skipBrowserTests('web-dashboard');

/** Signs in through the e-mailed link: request it on the sign-in page, open it, press the button. */
async function signInByEmail(page: Page, server: WebServer, email: string): Promise<string> {
  const before = server.smtp.messages.length;
  await page.goto(`${server.url}/dashboard/`);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
  await page.getByText('a sign-in link is on its way').waitFor();
  const link = await server.linkMailedTo(email, before);
  expect(link.startsWith(`${server.url}/sign-in?token=`)).toBe(true);
  await page.goto(link);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${server.url}/dashboard/`);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return link;
}

/** The text of a file the page downloaded. */
async function readDownload(file: Download): Promise<string> {
  const stream = await file.createReadStream();
  let out = '';
  for await (const chunk of stream) out += String(chunk);
  return out;
}

// Generous per-test time: a loaded 2-core CI machine runs many pages in one test.
describe.skipIf(skip).each(STORE_KINDS)('the dashboard on the %s store', { timeout: 120_000 }, (store) => {
  let b: BrowserSession;
  let server: WebServer;
  let page: Page;
  const ids = { product: '', license: '', key: '' };

  useBrowserAndServer(store, async (opened) => {
    ({ b, server } = opened);
    page = b.page;
  });

  it('shows a signed-out visitor the sign-in page: labelled, keyboard-usable, no layout shift', async () => {
    await page.goto(`${server.url}/dashboard/`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await page.title()).toBe('Sign in · Licensing dashboard');
    await page.keyboard.press('Tab'); // the skip-free sign-in page: the first stop is the e-mail field
    expect(await page.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('email');
    expect(await layoutShift(page)).toBeLessThan(0.01);
    await inspectPage(page, `${store}-sign-in`);
    expect(b.problems).toEqual([]);
  });

  it('signs the owner in with the link from the e-mail; the overview shows usage without shifting the layout', async () => {
    const link = await signInByEmail(page, server, server.ownerEmail);
    await page.getByText(`${server.ownerEmail} · owner`).waitFor();
    await page.getByText('Account Acme Software').waitFor();
    expect(await layoutShift(page)).toBeLessThan(0.01);
    await inspectPage(page, `${store}-overview-first`);
    // Opening a page moves focus to its heading (a screen reader announces it); the skip link,
    // the first element of the page, moves focus past the navigation to the page.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Overview');
    await page.getByRole('link', { name: 'Skip to content' }).focus();
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    // On a phone the navigation is behind a menu button that says whether it is open.
    await page.setViewportSize({ width: 375, height: 812 });
    const menu = page.getByRole('button', { name: 'Menu' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByRole('link', { name: 'Licenses' }).isVisible()).toBe(false);
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await page.getByRole('link', { name: 'Licenses' }).click();
    await page.getByRole('heading', { level: 1, name: 'Licenses' }).waitFor();
    await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('false');
    await page.setViewportSize({ width: 1280, height: 860 });

    // The same link again: a clear page that signs nothing in and leads to the sign-in page.
    await page.goto(link);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'This link was already used' }).waitFor();
    await inspectPage(page, `${store}-link-used`);
    await page.getByRole('link', { name: 'Ask for a new sign-in link' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor(); // still signed in by the first use
    expect(b.problems).toEqual([]);
  });

  it('creates a product, a plan and a license from the pages', async () => {
    await open(page, server.url, 'products', 'Products');
    await page.getByLabel('Name', { exact: true }).fill('Acme Editor');
    await page.getByLabel('License key prefix').fill('ACME-');
    await page.getByRole('button', { name: 'Create the product' }).click();
    await page.getByRole('heading', { level: 1, name: 'Acme Editor' }).waitFor();
    ids.product = new URL(page.url()).hash.split('/')[2]!;
    expect(ids.product).toMatch(/^prd_/);

    const plans = page.getByRole('region', { name: 'Plans of Acme Editor' });
    await plans.getByLabel('Code').fill('pro');
    await plans.getByLabel('Name').fill('Pro');
    await plans.getByLabel('Kind').selectOption('perpetual');
    await plans.getByLabel('Machines per seat').fill('2');
    await plans.getByLabel('Entitlements').fill('export, sync');
    await plans.getByRole('button', { name: 'Add the plan' }).click();
    await plans.getByRole('cell', { name: 'pro', exact: true }).waitFor();

    await open(page, server.url, 'licenses/new', 'New license');
    await page.getByLabel('Customer e-mail').fill('jo@customer.test');
    await page.getByLabel('Customer name').fill('Jo Customer');
    await page.getByLabel('E-mail the license key to the customer').check();
    const before = server.smtp.messages.length;
    await page.getByRole('button', { name: 'Create the license' }).click();
    await page.getByRole('heading', { level: 1, name: 'License of Jo Customer' }).waitFor();
    ids.license = new URL(page.url()).hash.split('/')[2]!;
    ids.key = (await page.locator('.copy-field code').first().textContent())!;
    expect(ids.key).toMatch(/^ACME-([A-Z0-9]{5}-){3}[A-Z0-9]{5}$/);
    // The key went to the customer by e-mail, as asked.
    const [mail] = await server.smtp.waitFor(before + 1).then((all) => all.slice(before));
    expect(mail!.envelope.to).toEqual(['jo@customer.test']);
    expect(mail!.mail.text).toContain(ids.key);

    // Found again by part of the name, and by the complete key typed in lower case.
    await open(page, server.url, 'licenses', 'Licenses');
    for (const search of ['Customer', ids.key.toLowerCase()]) {
      await page.getByLabel('E-mail, name or key').fill(search);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('link', { name: 'Jo Customer' }).waitFor();
    }
    expect(b.problems).toEqual([]);
  });

  it('shows the activation the client SDK makes, then revokes the license and the SDK reports license_revoked', async () => {
    const keys = (await server.api('GET', `/products/${ids.product}/keys`)).body.data as { kid: string; publicKey: string }[];
    const client = createLicenseClient({
      baseUrl: `${server.url}/v1`,
      product: ids.product,
      publicKeys: Object.fromEntries(keys.map((k) => [k.kid, k.publicKey])),
      appVersion: '2.1.0',
      storage: createMemoryStorage(),
      machineId: `machine-${store}`,
    });
    expect((await client.activate(ids.key, { name: 'Studio laptop' })).valid).toBe(true);

    await open(page, server.url, `licenses/${ids.license}`, 'License of Jo Customer');
    const machines = page.getByRole('region', { name: 'Machines' });
    await machines.getByRole('cell', { name: 'Studio laptop', exact: true }).waitFor();
    await machines.getByRole('cell', { name: '2.1.0', exact: true }).waitFor();
    // Dates read in the browser's locale (en-GB here), the UTC instant on hover.
    const activated = machines.locator('time').first();
    expect(await activated.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(UTC\)$/);
    expect(await activated.textContent()).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d$/);
    await inspectPage(page, `${store}-license`);

    // Free a second machine from the page: the SDK on it is then not activated any more.
    const other = createLicenseClient({
      baseUrl: `${server.url}/v1`,
      product: ids.product,
      publicKeys: Object.fromEntries(keys.map((k) => [k.kid, k.publicKey])),
      appVersion: '2.1.0',
      storage: createMemoryStorage(),
      machineId: `other-${store}`,
    });
    expect((await other.activate(ids.key, { name: 'Old desktop' })).valid).toBe(true);
    await page.reload();
    await machines.getByRole('button', { name: 'Free Old desktop' }).click();
    await page.getByRole('dialog', { name: 'Free this machine?' }).getByRole('button', { name: 'Free the machine' }).click();
    await page.getByText('Old desktop is freed').waitFor();
    await machines.getByRole('cell', { name: 'Old desktop', exact: true }).waitFor({ state: 'detached' });
    await expect(other.validate()).rejects.toMatchObject({ code: 'not_activated' });

    // Suspend, then reinstate: the SDK follows each.
    await page.getByRole('button', { name: 'Suspend', exact: true }).click();
    await page.getByRole('dialog', { name: 'Suspend this license?' }).getByRole('button', { name: 'Suspend' }).click();
    await page.getByText('The license is suspended.').waitFor();
    await expect(client.validate()).rejects.toMatchObject({ code: 'license_suspended' });
    await page.getByRole('button', { name: 'Reinstate', exact: true }).click();
    await page.getByRole('dialog', { name: 'Reinstate this license?' }).getByRole('button', { name: 'Reinstate' }).click();
    await page.getByText('The license is reinstated.').waitFor();
    expect((await client.validate()).valid).toBe(true);

    // Revoke by keyboard: the dialog opens on Enter, Escape closes it and focus returns to the button.
    const revoke = page.getByRole('button', { name: 'Revoke', exact: true });
    await revoke.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Revoke this license for good?' });
    await dialog.waitFor();
    await inspectPage(page, `${store}-revoke-dialog`);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await revoke.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await dialog.getByRole('button', { name: 'Revoke the license' }).click();
    await page.getByText('The license is revoked.').waitFor();
    await page.getByText('A revoked license is final').waitFor();

    await expect(client.validate()).rejects.toMatchObject({ code: 'license_revoked' });

    // The license's events, from its page: the revocation is the newest, every row names the license by its customer.
    await page.getByRole('link', { name: 'Events of this license' }).click();
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Events of the license of Jo Customer' }).waitFor();
    const first = page.locator('tbody tr').first();
    await first.getByText('Perpetual → Revoked (vendor)').waitFor();
    expect(await page.locator('tbody tr').evaluateAll((rows) => rows.every((r) => r.textContent?.includes('Jo Customer · Acme Editor')))).toBe(true);
    expect(b.problems).toEqual([]);
  });

  it('rotates the signing key in two steps through the product page', async () => {
    await open(page, server.url, `products/${ids.product}`, 'Acme Editor');
    const keys = page.getByRole('region', { name: 'Signing keys' });
    await keys.getByRole('button', { name: 'Create a pending key' }).click();
    await keys.getByText('Step 1 done: k2 is published as pending').waitFor();
    // One pending key at a time: once k2 is listed as pending, creating another is not offered.
    await keys.getByRole('button', { name: 'Activate k2' }).waitFor();
    expect(await keys.getByRole('button', { name: 'Create a pending key' }).isDisabled()).toBe(true);
    await keys.getByRole('button', { name: 'Activate k2' }).click();
    await page.getByRole('dialog', { name: 'Activate k2?' }).getByRole('button', { name: 'Activate k2 now' }).click();
    await keys.getByText('Step 3 done: k2 now signs every certificate; k1 is retired.').waitFor();
    await keys.getByText('retired', { exact: true }).waitFor(); // the list reloaded
    const statuses = await keys.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.textContent));
    expect(statuses[0]).toContain('retired');
    expect(statuses[1]).toContain('active');
    const listed = (await server.api('GET', `/products/${ids.product}/keys`)).body.data;
    expect(listed.map((k: { kid: string; status: string }) => `${k.kid}:${k.status}`)).toEqual(['k1:retired', 'k2:active']);
    expect(b.problems).toEqual([]);
  });

  it('creates an API key shown once, and the vendor API accepts it until it is revoked', async () => {
    await open(page, server.url, 'api-keys', 'API keys');
    await page.getByLabel('Name').fill('billing backend');
    await page.getByRole('button', { name: 'Create the key' }).click();
    const value = (await page.getByRole('region', { name: 'Your new key' }).locator('code').textContent())!;
    expect(value).toMatch(/^svc_sk_/);
    expect((await fetch(`${server.url}/v1/products`, { headers: { authorization: `Bearer ${value}` } })).status).toBe(200);
    await page.getByRole('button', { name: 'Revoke billing backend' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke the key' }).click();
    await page.getByText('The key billing backend is revoked.').waitFor();
    expect((await fetch(`${server.url}/v1/products`, { headers: { authorization: `Bearer ${value}` } })).status).toBe(401);
  });

  it('adds a payment integration whose webhook URL is copied with one button, and saves the account settings', async () => {
    await open(page, server.url, 'integrations', 'Integrations');
    await page.getByLabel('Webhook signing secret').fill('whsec_test_secret');
    await page.getByLabel('Price map').fill('pri_123 = pro\npri_456 = pro');
    await page.getByRole('button', { name: 'Add the integration' }).click();
    const card = page.getByRole('region', { name: 'provider_a · Acme Editor · live' });
    await card.getByText('saved', { exact: true }).waitFor();
    const integration = (await server.api('GET', '/integrations')).body.data[0];
    expect(integration).toMatchObject({ provider: 'provider_a', product: ids.product, priceMap: { pri_123: 'pro', pri_456: 'pro' }, hasWebhookSecret: true });
    await card.getByRole('button', { name: 'Copy webhook URL' }).click();
    await card.getByText('Copied').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(integration.webhookUrl);
    // A malformed price map is refused before anything is sent, with a message naming the line (under the field).
    await card.getByRole('textbox', { name: 'Price map' }).fill('pri_123 = pro\nnot a mapping');
    await card.getByRole('button', { name: 'Save the price map' }).click();
    await card.getByRole('alert').filter({ hasText: 'Price map line 2' }).waitFor();

    await open(page, server.url, 'settings', 'Account settings');
    await page.getByLabel('Sender name').fill('Acme Sales');
    await page.getByLabel('Default language of customer e-mails').selectOption('fr');
    await page.getByRole('button', { name: 'Save the settings' }).click();
    await page.getByText('Saved.').waitFor();
    expect((await server.api('GET', '/account')).body).toMatchObject({ senderName: 'Acme Sales', defaultLocale: 'fr' });
    // An invalid value past the page's own check is refused by the API, whose message is shown under the field.
    await page.getByLabel('Reply-to address').fill('not-an-address');
    await page.getByLabel('Reply-to address').evaluate((el) => el.setAttribute('type', 'text')); // past the page's own check
    await page.getByRole('button', { name: 'Save the settings' }).click();
    await page.getByRole('alert').filter({ hasText: 'Reply-to address must be an e-mail address.' }).waitFor();
    expect((await server.api('GET', '/account')).body.replyTo).toBeNull();
    expect(b.problems).toEqual([]);
  });

  it('pages through licenses 50 at a time and filters them by status', async () => {
    const plan = (await server.api('GET', `/products/${ids.product}/plans`)).body.data[0];
    for (let i = 0; i < 51; i++) {
      const res = await server.api('POST', '/licenses', { plan: plan.id, email: `buyer${i}@customer.test`, name: `Buyer ${String(i).padStart(2, '0')}` });
      expect(res.status).toBe(201);
    }
    await open(page, server.url, 'licenses', 'Licenses');
    const rows = page.locator('tbody tr');
    await page.getByRole('link', { name: 'Buyer 50' }).waitFor(); // newest first
    expect(await rows.count()).toBe(50);
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByRole('link', { name: 'Jo Customer' }).waitFor();
    expect(await rows.count()).toBe(2); // Buyer 00 and the revoked license of Jo
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByRole('link', { name: 'Buyer 50' }).waitFor();
    await page.getByLabel('Status').selectOption('revoked');
    await page.waitForURL(/status=revoked/);
    await page.getByRole('link', { name: 'Jo Customer' }).waitFor();
    expect(await rows.count()).toBe(1);
    expect(b.problems).toEqual([]);
  });

  it('passes axe on every page at 375 px and on a desktop, and saves their screenshots', async () => {
    const pages: [string, string | RegExp][] = [
      ['', 'Overview'],
      ['products', 'Products'],
      [`products/${ids.product}`, 'Acme Editor'],
      ['plans', 'Plans'],
      ['licenses', 'Licenses'],
      ['licenses/new', 'New license'],
      ['customers', 'Customers'],
      ['events', 'Events'],
      ['integrations', 'Integrations'],
      ['api-keys', 'API keys'],
      ['members', 'Members'],
      ['settings', 'Account settings'],
      ['sender-domain', 'Sender domain'],
      ['export', 'Export the account'],
      ['close', 'Close the account'],
    ];
    for (const [route, heading] of pages) {
      // A fresh document per page, so its layout-shift score is its own.
      await page.goto('about:blank');
      await open(page, server.url, route, heading);
      await page.waitForLoadState('networkidle');
      const shift = await layoutShifts(page);
      expect(shift.total, `layout shift of ${route || 'overview'}: ${shift.moved.join(' | ')}`).toBeLessThan(0.01);
      // Every check on the first store; on the second (same pages, other data source) axe on the desktop and the 375 px width.
      await inspectPage(page, `${store}-${route.replace(/\/.*/, '-detail') || 'overview'}`, { full: store === STORE_KINDS[0] });
    }
    expect(b.problems).toEqual([]);
  });

  describe('a member', () => {
    let context: BrowserContext;
    let member: Page;
    beforeAll(async () => {
      context = await b.browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-GB' });
      member = await context.newPage();
    });
    afterAll(async () => {
      await context?.close();
    });

    it('is invited by the owner, signs in, and sees owner-only actions refused with the API\'s message', async () => {
      const email = `member-${store}@vendor.test`;
      await open(page, server.url, 'members', 'Members');
      await page.getByLabel('E-mail address').fill(email);
      await page.getByRole('button', { name: 'Invite' }).click();
      await page.getByText(`${email} is invited`).waitFor();

      await signInByEmail(member, server, email);
      await member.getByText(`${email} · member`).waitFor();

      await open(member, server.url, `products/${ids.product}`, 'Acme Editor');
      await member.getByText('Only the account owner can export private keys').waitFor();
      await member.getByRole('button', { name: 'Export the private keys' }).click();
      const dialog = member.getByRole('dialog', { name: 'Export the private signing keys?' });
      await dialog.getByRole('button', { name: 'Export and download' }).click();
      await dialog.getByRole('alert').filter({ hasText: /owner/i }).waitFor();

      await open(member, server.url, 'members', 'Members');
      await member.getByLabel('E-mail address').fill('someone@vendor.test');
      await member.getByRole('button', { name: 'Invite' }).click();
      await member.getByRole('alert').filter({ hasText: /owner/i }).waitFor();
      const listed = (await server.api('GET', '/members')).body.data.map((m: { email: string }) => m.email);
      expect(listed).toEqual([email]);

      // A member can still do the vendor's daily work.
      await open(member, server.url, 'licenses?q=Jo', 'Licenses');
      await member.getByRole('link', { name: 'Jo Customer' }).waitFor();
    });

    it('is removed by the owner and is signed out at the next request', async () => {
      const email = `member-${store}@vendor.test`;
      await open(page, server.url, 'members', 'Members');
      await page.getByRole('button', { name: `Remove ${email}` }).click();
      await page.getByRole('dialog', { name: `Remove ${email}?` }).getByRole('button', { name: 'Remove the member' }).click();
      await page.getByText(`${email} is removed`).waitFor();
      await page.getByRole('cell', { name: email, exact: true }).waitFor({ state: 'detached' });

      await member.getByRole('link', { name: 'Customers' }).click();
      await member.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await member.getByText('Your session has ended').waitFor();
    });
  });

  it('claims a sender domain whose records are copied with one button, releases it, and exports the account', async () => {
    await open(page, server.url, 'sender-domain', 'Sender domain');
    await page.getByRole('textbox', { name: 'Domain', exact: true }).fill('mail.acme.test');
    await page.getByRole('button', { name: 'Claim the domain' }).click();
    const records = page.getByRole('region', { name: 'Records to publish' });
    await records.getByText('_svc-licensing.mail.acme.test').waitFor();
    expect(await records.locator('tbody tr').count()).toBe(3);
    const dkim = (await server.api('GET', '/account/sender-domain')).body.records.find((r: { purpose: string }) => r.purpose === 'dkim');
    await records.getByRole('button', { name: 'Copy value of the dkim record' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(dkim.value);
    await inspectPage(page, `${store}-sender-domain-claimed`, { full: store === STORE_KINDS[0] });
    await page.getByRole('button', { name: 'Release the domain' }).click();
    await page.getByRole('dialog', { name: 'Release mail.acme.test?' }).getByRole('button', { name: 'Release' }).click();
    await page.getByRole('button', { name: 'Claim the domain' }).waitFor();
    expect((await server.api('GET', '/account/sender-domain')).body).toMatchObject({ domain: null, status: 'none' });

    await open(page, server.url, 'export', 'Export the account');
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export and download' }).click();
    const doc = JSON.parse(await readDownload(await download));
    expect(doc.format).toBe('svc-account-export-v1');
    expect(JSON.stringify(doc)).toContain(ids.key);
    await page.getByText('The export is downloaded').waitFor();
    expect(b.problems).toEqual([]);
  });

  it('the owner exports the private keys with the spec\'s warning, and signs out', async () => {
    await open(page, server.url, `products/${ids.product}`, 'Acme Editor');
    await page.getByText('anyone holding one can issue licenses for Acme Editor').waitFor();
    await page.getByRole('button', { name: 'Export the private keys' }).click();
    const download = page.waitForEvent('download');
    await page.getByRole('dialog').getByRole('button', { name: 'Export and download' }).click();
    const doc = JSON.parse(await readDownload(await download));
    expect(doc.format).toBe('svc-signing-keys-v1');
    expect(doc.keys.map((k: { kid: string }) => k.kid)).toEqual(['k1', 'k2']);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect((await fetch(`${server.url}/v1/session`, { headers: { cookie: (await b.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') } })).status).toBe(401);
    expect(b.problems).toEqual([]);
    // Every request of every page went to the server itself: no CDN, no other origin.
    expect([...b.origins]).toEqual([server.url]);
  });

  it('closes the account after saying what it means, and reopens it with the e-mailed link', async () => {
    await signInByEmail(page, server, server.ownerEmail);
    await open(page, server.url, 'close', 'Close the account');
    await page.getByText('After 30 days, every record of the account is deleted').waitFor();
    const confirm = page.getByLabel("Type the account's name (Acme Software) to confirm");
    await confirm.fill('Acme');
    await page.getByRole('button', { name: 'Close the account' }).click();
    await page.getByRole('alert').filter({ hasText: "Type the account's name, Acme Software, to confirm." }).waitFor();
    expect((await server.api('GET', '/account')).body.status).toBe('open');

    const before = server.smtp.messages.length;
    await confirm.fill('Acme Software');
    await page.getByRole('button', { name: 'Close the account' }).click();
    await page.getByText('The account is closed.').waitFor();
    // Sessions are revoked at once: the next page asks to sign in.
    await page.getByRole('link', { name: 'Products' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();

    const reopen = await server.linkMailedTo(server.ownerEmail, before);
    expect(reopen).toContain('/reopen?token=');
    await page.goto(reopen);
    await inspectPage(page, `${store}-reopen`, { full: store === STORE_KINDS[0] });
    await page.getByRole('button', { name: 'Reopen the account and sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByText(`${server.ownerEmail} · owner`).waitFor();
    expect(b.problems).toEqual([]);
  });
});
