/**
 * Real Chromium against a real server, for the browser apps' tests: one browser per test file,
 * pages reused; axe-core run inside the page without loosening its Content-Security-Policy;
 * screenshots saved under `artifacts/screenshots/` (gitignored) at the repository root.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { launchChromium, skipBrowserTests } from '../../../verifier/test/support/chromium.js';
import { WEB_BUILD, webBuildFile } from './web-build.js';

export { skipBrowserTests };

export const SCREENSHOTS = fileURLToPath(new URL('../../../../artifacts/screenshots/', import.meta.url));
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Widths every page is looked at: a phone and a desktop. */
export const VIEWPORTS = { phone: { width: 375, height: 812 }, desktop: { width: 1280, height: 860 } } as const;

export interface BrowserSession {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors and CSP violations seen so far (each test asserts it stays empty). */
  problems: string[];
  /** Origins of every request the pages made (the apps load nothing from another origin). */
  origins: Set<string>;
  close(): Promise<void>;
}

/** Launches Chromium with one context and page; every console error or CSP refusal is recorded. */
export async function openBrowser(): Promise<BrowserSession> {
  webBuildFile('manifest.json'); // fails clearly without a build
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: VIEWPORTS.desktop, locale: 'en-GB', timezoneId: 'Europe/Paris' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await context.newPage();
  const problems: string[] = [];
  const origins = new Set<string>();
  context.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol === 'http:' || url.protocol === 'https:') origins.add(url.origin);
  });
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const text = msg.text();
    // A refused API call is logged by Chromium as a failed resource load; the page shows the API's message itself.
    if (/Failed to load resource: the server responded with a status of (4\d\d)/.test(text)) return;
    problems.push(`console: ${text}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return { browser, context, page, problems, origins, close: () => browser.close() };
}

/**
 * Runs axe-core in the page (evaluated over the DevTools protocol, which the page's CSP does not
 * govern, so the policy under test stays as served) and fails on any serious or critical violation.
 */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  const hasAxe = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === 'object');
  if (!hasAxe) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: unknown): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious, `${label}: ${JSON.stringify(serious, null, 2)}`).toEqual([]);
}

/** Saves a full-page screenshot as `artifacts/screenshots/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Looks at the page as a person would at both widths: accessible (axe), nothing wider than a
 * 375 px screen, screenshots of both; then back to the desktop width. `full: false` (the same
 * pages on a second store) keeps the desktop axe run and the 375 px width check only.
 */
export async function inspectPage(page: Page, name: string, options: { full?: boolean } = {}): Promise<void> {
  const full = options.full !== false;
  await expectAccessible(page, name);
  if (full) await screenshot(page, `${name}-desktop`);
  await page.setViewportSize(VIEWPORTS.phone);
  try {
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `${name} is wider than a 375 px screen`).toBeLessThanOrEqual(0);
    if (full) {
      await expectAccessible(page, `${name} (375 px)`);
      await screenshot(page, `${name}-phone`);
    }
  } finally {
    await page.setViewportSize(VIEWPORTS.desktop);
  }
}

/** Sum of the layout shifts of the page so far (Chromium's layout-shift entries). */
export async function layoutShift(page: Page): Promise<number> {
  return (await layoutShifts(page)).total;
}

/** The layout shifts of the page so far: their sum and what moved (for the failure message). */
export function layoutShifts(page: Page): Promise<{ total: number; moved: string[] }> {
  return page.evaluate(
    () =>
      new Promise<{ total: number; moved: string[] }>((resolve) => {
        let total = 0;
        const moved: string[] = [];
        type Shift = PerformanceEntry & { value: number; hadRecentInput: boolean; sources?: { node?: Node | null }[] };
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as Shift[]) {
            if (entry.hadRecentInput) continue;
            total += entry.value;
            for (const source of entry.sources ?? []) moved.push(`${entry.value.toFixed(3)} ${(source.node as Element | null)?.outerHTML?.slice(0, 120) ?? '?'}`);
          }
        }).observe({ type: 'layout-shift', buffered: true });
        setTimeout(() => resolve({ total, moved }), 100);
      }),
  );
}

/** The base URL of a harness running in `node-server` mode. */
export async function serverUrl(fetchHealth: () => Promise<Response>): Promise<string> {
  const res = await fetchHealth();
  return new URL(res.url).origin;
}

export { WEB_BUILD };
