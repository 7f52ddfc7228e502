import type { Page } from 'playwright-core';
import type { LicenseEngine } from '@svc-licensing/license-engine';
import { linkUrl } from '../../src/session/links.js';

/** What signing into a server's dashboard needs: its base URL, its engine and its first account. */
export interface DashboardServer {
  url: string;
  engine: Pick<LicenseEngine, 'issueSignInLink'>;
  accountId: string;
}

export interface DashboardSignIn {
  /** The account to sign into (default: the server's first). */
  accountId?: string;
  /** A member's address (default: the owner's). */
  email?: string;
  /** Drops the page's cookies first, so a second person signs in on the same page. */
  fresh?: boolean;
  /** A page to open once signed in, as `[hash route, its level-1 heading]`. */
  open?: readonly [route: string, heading: string];
}

/**
 * Signs into the dashboard with a link the engine issues (the e-mail round trip is tested in
 * web/dashboard.test.ts): opens the link page, presses Sign in and waits for the Overview, then
 * opens `options.open` if given.
 */
export async function signInToDashboard(page: Page, server: DashboardServer, options: DashboardSignIn = {}): Promise<void> {
  const { token } = await server.engine.issueSignInLink(options.accountId ?? server.accountId, options.email === undefined ? {} : { email: options.email });
  if (options.fresh) await page.context().clearCookies();
  await page.goto(linkUrl(server.url, 'sign_in', token));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${server.url}/dashboard/`);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  if (options.open) await openDashboardPage(page, server.url, ...options.open);
}

/** Opens a dashboard page by its hash route and waits for its level-1 heading. */
export async function openDashboardPage(page: Page, base: string, route: string, heading: string | RegExp): Promise<void> {
  await page.goto(`${base}/dashboard/#/${route}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}
