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

/**
 * Launches Chromium with one context and page; every console error or CSP refusal is recorded.
 * `hostResolverRules` (Chromium's `--host-resolver-rules`, e.g. `MAP svc.lan 127.0.0.1`) reaches
 * a local server by a name Chromium treats as any other host: not localhost, not a secure context.
 */
export async function openBrowser(options: { hostResolverRules?: string } = {}): Promise<BrowserSession> {
  webBuildFile('manifest.json'); // fails clearly without a build
  const browser = await launchChromium(options.hostResolverRules ? [`--host-resolver-rules=${options.hostResolverRules}`] : []);
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
  // A file the browser asks for by itself (the icon of the tab) that is missing: every page would log it.
  context.on('response', (response) => {
    const url = new URL(response.url());
    if (response.status() === 404 && !url.pathname.includes('/v1/')) problems.push(`404: ${url.pathname}`);
  });
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

/**
 * Fails when something of the page is cut off: the page wider than the window, or a box whose
 * content is wider than it (a table scrolling sideways inside its section). A form field's own
 * text, text that ends in an ellipsis on purpose and visually hidden boxes (1 px wide) are not.
 */
export async function expectNothingCutOff(page: Page, label: string): Promise<void> {
  const cut = await page.evaluate(() => {
    const found: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth) found.push(`the page: ${doc.scrollWidth} px wide in a ${doc.clientWidth} px window`);
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('body *'))) {
      const style = getComputedStyle(el);
      // A field scrolls its own text; an ellipsis ends a text on purpose; a 1 px box is hidden on purpose.
      if (el.matches('input, textarea, select') || style.overflowX === 'visible' || style.textOverflow === 'ellipsis' || el.clientWidth <= 2) continue;
      if (el.scrollWidth > el.clientWidth + 1) found.push(`${el.tagName.toLowerCase()}.${el.className}: ${el.scrollWidth} px of content in ${el.clientWidth} px (${el.textContent?.slice(0, 60)})`);
    }
    return found;
  });
  expect(cut, `${label}: something is cut off`).toEqual([]);
}

/**
 * Fails when an ID (`code.id`) is broken over two lines or has no copy button beside it, or when an
 * address (`.address`) wraps anywhere but right after a `/`, `?`, `&` or `=`.
 */
export async function expectIdsWhole(page: Page, label: string): Promise<void> {
  const broken = await page.evaluate(() => {
    const found = Array.from(document.querySelectorAll<HTMLElement>('code.id'))
      .filter((el) => el.getClientRects().length > 1 || el.closest('.id-copy')?.querySelector('button') == null)
      .map((el) => `${el.textContent} (ID)`);
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('.address'))) {
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      let before: { top: number; char: string } | null = null;
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        for (let i = 0; i < text.length; i++) {
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const top = range.getBoundingClientRect().top;
          if (before && top > before.top + 2 && !'/?&='.includes(before.char)) found.push(`${el.textContent} (address wrapped after "${before.char}")`);
          before = { top, char: text[i]! };
        }
      }
    }
    return found;
  });
  expect(broken, `${label}: IDs or addresses broken inside a part, or IDs without a copy button`).toEqual([]);
}

/** Saves a full-page screenshot as `artifacts/screenshots/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Looks at the page as a person would at both widths: accessible (axe), nothing cut off on a
 * desktop, nothing wider than a 375 px screen and every ID whole there, screenshots of both; then
 * back to the desktop width. `full: false` (the same pages on a second store) keeps the desktop axe
 * run and the width checks only.
 */
export async function inspectPage(page: Page, name: string, options: { full?: boolean } = {}): Promise<void> {
  const full = options.full !== false;
  await expectAccessible(page, name);
  await expectNothingCutOff(page, `${name} (1280 px)`);
  if (full) await screenshot(page, `${name}-desktop`);
  await page.setViewportSize(VIEWPORTS.phone);
  try {
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `${name} is wider than a 375 px screen`).toBeLessThanOrEqual(0);
    await expectNothingCutOff(page, `${name} (375 px)`);
    await expectIdsWhole(page, `${name} (375 px)`);
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
