import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Resolver } from 'node:dns/promises';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import type { DnsResolver } from '@svc-licensing/license-engine';
import { createDnsResolver } from '../../src/index.js';
import { STORE_KINDS } from '../support/stores.js';
import { expectAccessible, inspectPage, skipBrowserTests, type BrowserSession } from '../support/browser.js';
import type { WebServer } from '../support/web-server.js';
import { useBrowserAndServer } from '../support/browser-server.js';
import { openDashboardPage, signInToDashboard } from '../support/dashboard.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';

// The sender domain's "Verify now" in real Chromium against a real server on each store, whose DNS
// checks ask a real DNS server this test runs on 127.0.0.1 (the zone is what the vendor would have
// published at their DNS host): with a record missing and another published with a wrong value the
// page says the domain is not verified and which records were not found; once all three are right
// it says verified and the address mail goes out from; both outcomes are announced in a live
// region and the page is axe-clean in both. Then "Send the key again" sends the key DKIM-signed at
// the domain, which a DKIM verifier accepts against the same DNS server.
const skip = skipBrowserTests('web-sender-domain-verify');

const DOMAIN = 'mail.acme.test';

async function ok<T = any>(answer: Promise<{ status: number; body: T }>): Promise<T> {
  const { status, body } = await answer;
  expect(status, JSON.stringify(body)).toBeLessThan(300);
  return body;
}

interface ShownRecord {
  purpose: string;
  name: string;
  value: string;
  found: string;
}

/** The records table as the page shows it: purpose, name, value and the "Found" cell of each row. */
async function shownRecords(page: Page): Promise<ShownRecord[]> {
  const rows = page.getByRole('region', { name: 'Records to publish' }).locator('tbody tr');
  return rows.evaluateAll((trs) =>
    trs.map((tr) => {
      const cells = Array.from(tr.querySelectorAll('td'));
      const text = (i: number) => cells[i]?.querySelector('code')?.textContent ?? '';
      return { purpose: (cells[0]?.textContent ?? '').trim(), name: text(2), value: text(3), found: (cells[4]?.querySelector('.badge')?.textContent ?? cells[4]?.textContent ?? '').trim() };
    }),
  );
}

/** Presses "Verify now" and waits for its answer (the button usable again). */
async function verifyNow(page: Page): Promise<void> {
  await page.evaluate(() => {
    for (const el of Array.from(document.querySelectorAll('[role=status], [role=alert]'))) el.setAttribute('data-test-live-before', '');
  });
  await page.getByRole('button', { name: 'Verify now' }).click();
  await page.locator('button:not([disabled]):not([aria-busy])', { hasText: 'Verify now' }).waitFor();
}

/** The status region holding `text`, and whether it was on the page before the press (so it is announced). */
async function announced(page: Page, text: string): Promise<{ role: string | null; before: boolean }> {
  const region = page.locator('[role=status]').filter({ hasText: text });
  await region.waitFor();
  return region.evaluate((el) => ({ role: el.getAttribute('role'), before: el.hasAttribute('data-test-live-before') }));
}

describe.skipIf(skip).each(STORE_KINDS)('verifying the sender domain on the %s store', { timeout: 120_000 }, (store) => {
  const full = store === STORE_KINDS[0];
  let b: BrowserSession;
  let server: WebServer;
  let page: Page;
  let dns: TestDnsServer;
  let dnsResolver: DnsResolver | null = null;
  // The server's DNS checks go to the test DNS server (started below, before any check runs).
  const resolver: DnsResolver = {
    resolveTxt: (name) => {
      if (!dnsResolver) throw new Error('the test DNS server is not started');
      return dnsResolver.resolveTxt(name);
    },
  };

  beforeAll(async () => {
    dns = await startDnsServer();
    dnsResolver = createDnsResolver({ servers: [dns.address], timeoutMs: 2000 });
  });
  afterAll(async () => {
    await dns?.close();
  });
  useBrowserAndServer(
    store,
    async (opened) => {
      ({ b, server } = opened);
      page = b.page;
      await signInToDashboard(page, server, { open: ['sender-domain', 'Sender domain'] });
    },
    { senderDomains: { resolver } },
  );

  let records: ShownRecord[] = [];

  it('with one record missing and one wrong, shows not verified, which records were not found, and announces it', async () => {
    await page.getByRole('textbox', { name: 'Domain', exact: true }).fill(DOMAIN);
    await page.getByRole('button', { name: 'Claim the domain' }).click();
    await page.getByRole('region', { name: 'Records to publish' }).getByText(`_svc-licensing.${DOMAIN}`).waitFor();
    records = await shownRecords(page);
    expect(records.map((r) => [r.purpose, r.found])).toEqual([['ownership', 'not checked'], ['spf', 'not checked'], ['dkim', 'not checked']]);
    const byPurpose = Object.fromEntries(records.map((r) => [r.purpose, r]));
    // The values the page shows are the ones the server asks for.
    expect((await ok(server.api('GET', '/account/sender-domain'))).records.map((r: ShownRecord) => [r.purpose, r.name, r.value])).toEqual(
      records.map((r) => [r.purpose, r.name, r.value]),
    );

    // Published: SPF as shown; DKIM under the right name but with another key; no ownership record.
    dns.setTxt(byPurpose.spf!.name, [byPurpose.spf!.value]);
    const otherKey = byPurpose.dkim!.value.replace(/p=MII[A-Za-z0-9+/=]{20}/, (p) => `${p.slice(0, 5)}${'A'.repeat(p.length - 5)}`);
    expect(otherKey).not.toBe(byPurpose.dkim!.value);
    dns.setTxt(byPurpose.dkim!.name, [otherKey]);
    const asked = dns.queries.length;

    await verifyNow(page);
    const notVerified = `${DOMAIN} is not verified: the ownership and dkim records were not found in DNS with the values above.`;
    expect(await announced(page, notVerified)).toEqual({ role: 'status', before: true });
    // The server really asked the DNS server, for each record's name.
    expect(new Set(dns.queries.slice(asked))).toEqual(new Set(records.map((r) => r.name)));
    expect((await shownRecords(page)).map((r) => [r.purpose, r.found])).toEqual([['ownership', 'not found'], ['spf', 'found'], ['dkim', 'not found']]);
    const facts = page.getByRole('region', { name: DOMAIN, exact: true });
    await facts.locator('.badge', { hasText: 'failed' }).waitFor();
    await facts.getByText('the service address, until verified').waitFor();
    expect(await facts.getByText('never').count()).toBe(0); // "Last checked" now has a time
    expect((await ok(server.api('GET', '/account/sender-domain'))).status).toBe('failed');
    await expectAccessible(page, `${store} sender domain not verified`);
    await inspectPage(page, `${store}-sender-domain-not-verified`, { full });
    expect(b.problems).toEqual([]);
  });

  it('with all three records right, shows verified and the sending address, and announces it', async () => {
    expect(records).toHaveLength(3);
    for (const r of records) dns.setTxt(r.name, [r.value]);
    await verifyNow(page);
    const verified = `${DOMAIN} is verified: license-key e-mails now go out from licenses@${DOMAIN}, DKIM-signed.`;
    expect(await announced(page, verified)).toEqual({ role: 'status', before: true });
    expect((await shownRecords(page)).map((r) => [r.purpose, r.found])).toEqual([['ownership', 'found'], ['spf', 'found'], ['dkim', 'found']]);
    const facts = page.getByRole('region', { name: DOMAIN, exact: true });
    await facts.locator('.badge', { hasText: 'verified' }).waitFor();
    await facts.getByText(`licenses@${DOMAIN}`).waitFor();
    expect(await page.getByText('is not verified').count()).toBe(0);
    expect((await ok(server.api('GET', '/account/sender-domain'))).status).toBe('verified');
    await expectAccessible(page, `${store} sender domain verified`);
    await inspectPage(page, `${store}-sender-domain-verified`, { full });
    expect(b.problems).toEqual([]);
  });

  it('once verified, "Send the key again" e-mails the key from the domain, DKIM-signed with the published key', async () => {
    const product = await ok(server.api('POST', '/products', { name: 'Acme Editor', keyPrefix: 'ACME-' }));
    const plan = await ok(server.api('POST', `/products/${product.id}/plans`, { code: 'pro', kind: 'perpetual' }));
    const license = await ok(server.api('POST', '/licenses', { plan: plan.id, email: 'ada@customer.test', name: 'Ada Customer' }));
    await openDashboardPage(page, server.url, `licenses/${license.id}`, 'License of Ada Customer');
    const before = server.smtp.messages.length;
    await page.getByRole('button', { name: 'Send the key again' }).click();
    await page.getByRole('status').filter({ hasText: 'The key was e-mailed again to ada@customer.test.' }).waitFor();
    const [mail] = (await server.smtp.waitFor(before + 1)).slice(before);
    expect(mail!.envelope.from).toBe(`licenses@${DOMAIN}`);
    expect(mail!.mail.from?.value[0]?.address).toBe(`licenses@${DOMAIN}`);
    expect(mail!.mail.text).toContain(license.key);
    // A receiver's DKIM check, looking the key up in the same DNS server.
    const lookup = new Resolver({ timeout: 2000, tries: 2 });
    lookup.setServers([dns.address]);
    const { results } = await dkimVerify(mail!.raw, { resolver: (name: string, type: string) => lookup.resolve(name, type as 'TXT') as never });
    const dkim = records.find((r) => r.purpose === 'dkim')!;
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ signingDomain: DOMAIN, selector: dkim.name.split('.')[0], status: { result: 'pass' } });
    expect(b.problems).toEqual([]);
  });
});
