import { decodeRevocationList, matchRevocation, parseRevocationPayload } from '@svc-licensing/cert-format';
import { verifyRevocationList } from '@svc-licensing/verifier';
import type { Download } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { fingerprint } from '../support/fixtures.js';
import { inspectPage, skipBrowserTests, type BrowserSession } from '../support/browser.js';
import { STORE_KINDS } from '../support/stores.js';
import type { WebServer } from '../support/web-server.js';
import { useBrowserAndServer } from '../support/browser-server.js';
import { signInToDashboard } from '../support/dashboard.js';

// Issue 29, the dashboard half: the product page shows the product's signed revocation list (RVL1)
// and downloads it as `<productId>.rvl1`, the file a vendor carries to offline or air-gapped machines.
const skip = skipBrowserTests('web-revocation-list-page');

async function readDownload(file: Download): Promise<string> {
  const stream = await file.createReadStream();
  let out = '';
  for await (const chunk of stream) out += String(chunk);
  return out;
}

describe.skipIf(skip).each(STORE_KINDS)('the product page\'s revocation list on the %s store', { timeout: 120_000 }, (store) => {
  let b: BrowserSession;
  let server: WebServer;
  useBrowserAndServer(store, (opened) => ({ b, server } = opened));

  it('downloads the list the server serves, naming a license revoked over the API', async () => {
    const page = b.page;
    const product = (await server.api('POST', '/products', { name: 'Acme Editor', keyPrefix: 'ACME-' })).body;
    const plan = (await server.api('POST', `/products/${product.id}/plans`, { code: 'pro', kind: 'perpetual' })).body;
    const license = (await server.api('POST', '/licenses', { plan: plan.id, email: 'jo@customer.test' })).body;
    expect((await server.api('POST', `/licenses/${license.id}/revoke`)).status).toBe(200);

    await signInToDashboard(page, server, { fresh: true, open: [`products/${encodeURIComponent(product.id)}`, 'Acme Editor'] });
    const section = page.getByRole('region', { name: 'Revocation list' });
    await section.getByText('carry it to offline or air-gapped machines').waitFor();
    const facts = await section.locator('dl').innerText();
    expect(facts).toMatch(/Sequence number\s+1\b/);
    expect(facts).toMatch(/Revoked licenses\s+1\b/);
    expect(facts).toMatch(/Freed machines\s+0\b/);

    const [download] = await Promise.all([page.waitForEvent('download'), section.getByRole('button', { name: 'Download the revocation list' }).click()]);
    expect(download.suggestedFilename()).toBe(`${product.id}.rvl1`);
    const text = await readDownload(download);
    const served = await fetch(`${server.url}/v1/products/${encodeURIComponent(product.id)}/revocations`);
    expect(served.status).toBe(200);
    expect(text).toBe(await served.text());

    // The file verifies with the product's keys, as an app's importRevocationList would, and names the license.
    const keys = (await server.api('GET', `/products/${product.id}/keys`)).body.data as { kid: string; publicKey: string }[];
    const checked = await verifyRevocationList(text.trimEnd(), { publicKeys: Object.fromEntries(keys.map((k) => [k.kid, k.publicKey])), product: product.id });
    expect(checked.outcome).toBe('valid');
    const decoded = decodeRevocationList(text.trimEnd());
    if (!decoded.ok) throw new Error('the downloaded list does not decode');
    const parsed = parseRevocationPayload(decoded.payload);
    if (!parsed.ok) throw new Error(parsed.problem);
    const now = Math.floor(Date.now() / 1000);
    const subject = { fingerprint: fingerprint(product.id, 1), issuedAt: now };
    expect(matchRevocation(parsed.list, { ...subject, license: license.id }, now)).toBe('license');
    expect(matchRevocation(parsed.list, { ...subject, license: 'lic_not_revoked' }, now)).toBeNull();

    await inspectPage(page, `${store}-revocation-list`, { full: store === 'embedded' });
    expect(b.problems).toEqual([]);
  });
});
