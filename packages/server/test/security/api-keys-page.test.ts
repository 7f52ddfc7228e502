import { describe, expect, it } from 'vitest';
import { inspectPage, skipBrowserTests, type BrowserSession } from '../support/browser.js';
import { STORE_KINDS } from '../support/stores.js';
import type { WebServer } from '../support/web-server.js';
import { useBrowserAndServer } from '../support/browser-server.js';
import { signInToDashboard } from '../support/dashboard.js';

// Issue 25, item 2, in Chromium: the dashboard's API-keys page says who created each key, and a
// member is told (and shown by the API's refusal) that only the owner creates or revokes keys.
const skip = skipBrowserTests('security-api-keys-page');

describe.skipIf(skip).each(STORE_KINDS)('the API-keys page on the %s store', { timeout: 120_000 }, (store) => {
  let b: BrowserSession;
  let server: WebServer;
  useBrowserAndServer(store, (opened) => ({ b, server } = opened));

  it('shows who created each key: the operator, the owner by address, another key by its name', async () => {
    const page = b.page;
    await signInToDashboard(page, server, { fresh: true, open: ['api-keys', 'API keys'] });
    await page.getByLabel('Name').fill('billing backend');
    await page.getByRole('button', { name: 'Create the key' }).click();
    await page.getByRole('region', { name: 'Your new key' }).waitFor();
    const viaKey = await server.api('POST', '/api-keys', { name: 'rotated by CI' });
    expect(viaKey.status).toBe(201);
    await page.reload();
    const rows = page.getByRole('table', { name: 'API keys' }).locator('tbody tr');
    await rows.filter({ hasText: 'rotated by CI' }).waitFor();
    const text = await rows.evaluateAll((trs) => trs.map((tr) => tr.textContent ?? ''));
    expect(text.find((t) => t.includes('billing backend'))).toContain(`owner (${server.ownerEmail})`);
    expect(text.find((t) => t.includes('rotated by CI'))).toContain('API key default');
    expect(text.find((t) => t.startsWith('default'))).toContain('the operator (CLI)');
    await inspectPage(page, `${store}-security-api-keys`, { full: store === 'embedded' });
    expect(b.problems).toEqual([]);
  });

  it('tells a member that only the owner creates or revokes keys, and shows the refusal', async () => {
    const page = b.page;
    const email = `member-${store}@vendor.test`;
    await server.engine.addMember(server.accountId, { email });
    await signInToDashboard(page, server, { email, fresh: true, open: ['api-keys', 'API keys'] });
    await page.getByText('Only the account owner can create or revoke API keys; you are signed in as a member.').waitFor();
    await page.getByLabel('Name').fill('my way in');
    await page.getByRole('button', { name: 'Create the key' }).click();
    await page.getByText('Only the account owner can do this; a member cannot.').waitFor();
    const listed = (await server.api('GET', '/api-keys')).body.data as Array<{ name: string }>;
    expect(listed.map((k) => k.name)).not.toContain('my way in');
    await inspectPage(page, `${store}-security-api-keys-member`, { full: store === 'embedded' });
    expect(b.problems).toEqual([]);
  });
});
