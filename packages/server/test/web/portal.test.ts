import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLicenseClient, createMemoryStorage, type LicenseClient } from '@svc-licensing/verifier';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../support/stores.js';
import { inspectPage, openBrowser, screenshot, skipBrowserTests, type BrowserSession } from '../support/browser.js';
import { startWebServer, type WebServer } from '../support/web-server.js';
import { signInToDashboard } from '../support/dashboard.js';

// The customer portal in real Chromium against a real server, on each store: a customer signs in
// with the link from the test SMTP server, frees a machine, hits the release bound, and activates
// an air-gapped machine end to end; a customer of one account never sees another's.
const skip = skipBrowserTests('web-portal');
const BUYER = 'buyer@example.com';
const DAY = 86_400_000;

interface Machine {
  client: LicenseClient;
  /** Moves this machine's clock (the server runs on the real one). */
  advance(ms: number): void;
}

function machine(server: WebServer, product: string, publicKeys: Record<string, string>, id: string, online = true): Machine {
  let offset = 0;
  const client = createLicenseClient({
    baseUrl: `${server.url}/v1`,
    product,
    publicKeys,
    appVersion: '3.2.0',
    storage: createMemoryStorage(),
    machineId: id,
    now: () => Date.now() + offset,
    // An air-gapped machine has no network at all.
    ...(online ? {} : { fetch: () => Promise.reject(new TypeError('no network on this machine')) }),
  });
  return { client, advance: (ms) => void (offset += ms) };
}

describe.skipIf(skip).each(STORE_KINDS)('the customer portal on the %s store', (store) => {
  let b: BrowserSession;
  let server: WebServer;
  let page: Page;
  let serverStopped = false;
  const s = { product: '', license: '', key: '', otherLicense: '', otherAccount: '', vendorLicense: '', publicKeys: {} as Record<string, string> };
  const machines: Record<string, Machine> = {};
  const portal = () => `${server.url}/portal/${server.accountId}/`;

  beforeAll(async () => {
    [b, server] = await Promise.all([openBrowser(), startWebServer(store)]);
    page = b.page;
    await server.api('PATCH', '/account', { replyTo: 'help@acme.test' });
    const product = await server.api('POST', '/products', { name: 'Acme Editor', keyPrefix: 'ACME-', offlineDays: 14 });
    const plan = await server.api('POST', `/products/${product.body.id}/plans`, { code: 'pro', name: 'Pro', kind: 'perpetual', maxActivations: 1 });
    const license = await server.api('POST', '/licenses', { plan: plan.body.id, email: BUYER, name: 'Ada Buyer', seats: 3 });
    const keys = await server.api('GET', `/products/${product.body.id}/keys`);
    Object.assign(s, { product: product.body.id, license: license.body.id, key: license.body.key });
    s.vendorLicense = (await server.api('POST', '/licenses', { plan: plan.body.id, email: 'lab@customer.test' })).body.id;
    s.publicKeys = Object.fromEntries(keys.body.data.map((k: { kid: string; publicKey: string }) => [k.kid, k.publicKey]));
    for (const name of ['laptop', 'desktop']) {
      machines[name] = machine(server, s.product, s.publicKeys, `machine-${name}-${store}`);
      await machines[name]!.client.activate(s.key, { name: name === 'laptop' ? 'Ada laptop' : 'Office desktop', platform: 'linux' });
    }
    // The same buyer holds a license of another vendor on this server.
    const other = await server.engine.createAccount({ name: 'Beta Corp', ownerEmail: `beta-${store}@vendor.test`, servicePlan: 'unlimited' });
    const otherProduct = await server.engine.createProduct(other.account.id, { name: 'Beta Secret Tool', keyPrefix: 'BETA-' });
    const otherPlan = await server.engine.createPlan(other.account.id, otherProduct.id, { code: 'std', kind: 'perpetual' });
    const otherLicense = await server.engine.createLicense(other.account.id, { plan: otherPlan.id, email: BUYER });
    s.otherLicense = otherLicense.license.id;
    s.otherAccount = other.account.id;
  });
  afterAll(async () => {
    await b?.close();
    if (!serverStopped) await server?.close();
  });

  it('shows the sign-in page of the vendor: labelled, keyboard-usable, readable at 375 px', async () => {
    await page.goto(portal());
    await page.getByRole('heading', { level: 1, name: 'Your Acme Software licenses' }).waitFor();
    expect(await page.title()).toBe('Sign in · Acme Software licenses');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('email');
    await inspectPage(page, `${store}-portal-sign-in`);
    expect(b.problems).toEqual([]);
  });

  it('signs the customer in with the link from the e-mail and lists their licenses of this vendor only', async () => {
    const before = server.smtp.messages.length;
    await page.getByLabel('E-mail address').fill(BUYER);
    await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
    await page.getByText('a sign-in link is on its way').waitFor();
    const link = await server.linkMailedTo(BUYER, before);
    expect(link.startsWith(`${portal()}sign-in?token=`)).toBe(true);
    await page.goto(link);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(portal());
    await page.getByRole('heading', { level: 1, name: 'Your licenses' }).waitFor();
    await page.getByRole('link', { name: 'Acme Editor' }).waitFor();
    expect(await page.getByText('Beta Secret Tool').count()).toBe(0);
    await page.getByText('2 of 3').waitFor();
    await inspectPage(page, `${store}-portal-licenses`);
    expect(b.problems).toEqual([]);
  });

  it('reveals the key, lists the machines, and frees one: that machine reports not_activated at its next online check while another activates', async () => {
    await page.getByRole('link', { name: 'Acme Editor' }).click();
    await page.getByRole('heading', { level: 1, name: 'Acme Editor · Pro' }).waitFor();
    await page.getByRole('button', { name: 'Show the license key' }).click();
    await page.getByText(s.key).waitFor();
    const machinesTable = page.getByRole('table', { name: 'Machines using this license' });
    await machinesTable.getByText('Ada laptop', { exact: true }).waitFor();
    await machinesTable.getByText('Office desktop', { exact: true }).waitFor();
    await inspectPage(page, `${store}-portal-license`);

    await page.getByRole('button', { name: 'Free Ada laptop' }).click();
    const dialog = page.getByRole('dialog', { name: 'Free this machine?' });
    await dialog.waitFor();
    await screenshot(page, `${store}-portal-free-dialog`);
    await dialog.getByRole('button', { name: 'Free the machine' }).click();
    await page.getByText('Ada laptop is freed.').waitFor();
    await expect.poll(() => machinesTable.getByText('Ada laptop', { exact: true }).count()).toBe(0);

    const laptop = machines.laptop!;
    expect(await laptop.client.check()).toMatchObject({ valid: true, offline: true }); // before refreshAfter: the cached certificate
    laptop.advance(DAY + 60_000);
    expect(await laptop.client.check()).toMatchObject({ valid: false, reason: 'not_activated', offline: false });
    const spare = machine(server, s.product, s.publicKeys, `machine-spare-${store}`);
    expect(await spare.client.activate(s.key, { name: 'New laptop' })).toMatchObject({ valid: true });
    expect(b.problems).toEqual([]);
  });

  it('holds the release bound the vendor set, and says whom to contact', async () => {
    expect((await server.api('PATCH', '/account', { portalReleaseLimit: 1 })).status).toBe(200);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Acme Editor · Pro' }).waitFor();
    await page.getByText('0 left now').waitFor();
    await page.getByRole('button', { name: 'Free Office desktop' }).click();
    const dialog = page.getByRole('dialog', { name: 'Free this machine?' });
    await dialog.getByRole('button', { name: 'Free the machine' }).click();
    await dialog.getByRole('alert').getByText('contact Acme Software at help@acme.test').waitFor();
    await inspectPage(page, `${store}-portal-release-bound`);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    const detail = await server.api('GET', `/licenses/${s.license}`);
    expect(detail.body.activations.map((a: { name: string }) => a.name).sort()).toEqual(['New laptop', 'Office desktop']);
  });

  it("the dashboard's offline activation: the vendor pastes a customer's request and gets the certificate", async () => {
    const vendorPage = await b.context.browser()!.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-GB' }).then((c) => c.newPage());
    await signInToDashboard(vendorPage, server);
    await vendorPage.getByRole('link', { name: 'Offline activation' }).click();
    await vendorPage.getByRole('heading', { level: 1, name: 'Offline activation' }).waitFor();
    const station = machine(server, s.product, s.publicKeys, `machine-station-${store}`, false);
    await vendorPage.getByLabel('License ID').fill(s.vendorLicense);
    await vendorPage.getByLabel('Activation request', { exact: true }).fill(station.client.createActivationRequest({ name: 'Test station' }));
    await inspectPage(vendorPage, `${store}-dashboard-offline-activation`);
    await vendorPage.getByRole('button', { name: 'Activate and get the certificate' }).click();
    await vendorPage.getByText('The machine is activated.').waitFor();
    await vendorPage.getByText('Show the certificate text').click();
    const certificate = (await vendorPage.locator('.offline-result pre').textContent())!.trim();
    expect(await station.client.importCertificate(certificate)).toMatchObject({ valid: true, payload: { license: s.vendorLicense } });
    await screenshot(vendorPage, `${store}-dashboard-offline-activation-done`);
    await vendorPage.context().close();
  });

  it('activates an air-gapped machine end to end: SDK request → portal → certificate file → importCertificate → valid with the server stopped', async () => {
    const lab = machine(server, s.product, s.publicKeys, `machine-lab-${store}`, false);
    const folder = mkdtempSync(join(tmpdir(), 'svc-portal-'));
    const requestFile = join(folder, 'activation-request.txt');
    writeFileSync(requestFile, `${lab.client.createActivationRequest({ name: 'Lab PC', platform: 'linux', key: s.key })}\n`);

    await page.getByRole('link', { name: 'Activate without internet' }).click();
    await page.getByRole('heading', { level: 1, name: 'Activate a machine without internet' }).waitFor();
    await page.getByLabel('Activation request file').setInputFiles(requestFile);
    await expect.poll(() => page.getByLabel('Activation request', { exact: true }).inputValue()).toMatch(/^SVCREQ1\./);
    await inspectPage(page, `${store}-portal-offline`);
    await page.getByRole('button', { name: 'Activate and get the certificate' }).click();
    await page.getByText('The machine is activated.').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the certificate file' }).click()]);
    const certificateFile = join(folder, download.suggestedFilename());
    await download.saveAs(certificateFile);
    await screenshot(page, `${store}-portal-offline-done`);

    const imported = await lab.client.importCertificate(readFileSync(certificateFile, 'utf8'), { key: s.key });
    expect(imported).toMatchObject({ valid: true, payload: { license: s.license, fingerprint: lab.client.fingerprint } });
    const detail = await server.api('GET', `/licenses/${s.license}`);
    expect(detail.body.activations.map((a: { name: string }) => a.name)).toContain('Lab PC');
    expect(b.problems).toEqual([]);

    // A customer of this vendor never sees the other vendor's license, even by its ID.
    await page.goto(`${portal()}#/licenses/${s.otherLicense}`);
    await page.getByRole('alert').getByText(/not found/).waitFor();
    expect(await page.getByText('Beta Secret Tool').count()).toBe(0);
    // The other vendor's portal does not know this session: it shows its own sign-in page.
    await page.goto(`${server.url}/portal/${s.otherAccount}/`);
    await page.getByRole('heading', { level: 1, name: 'Your Beta Corp licenses' }).waitFor();

    await server.close();
    serverStopped = true;
    expect(await lab.client.check()).toMatchObject({ valid: true, offline: true });
  });
});
