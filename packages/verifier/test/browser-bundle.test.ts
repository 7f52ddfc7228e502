import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadVectors } from '../../../test-vectors/load.js';
import { BUNDLE, assertBrowserPrerequisites, closeServer, launchChromium, serveBundlePage, skipBrowserTests } from './support/chromium.js';

// Loads the BUILT browser bundle (dist/browser, built by `pnpm build`) into Debian's headless
// Chromium and checks every published vector in the page, with WebCrypto and with the noble fallback.

type Harness =
  | { error: string }
  | { available: string[]; selected: string; auto: string[][]; noble: string[][]; chunksBeforeNoble: string[]; fingerprint: string; userAgent: string };

// The page: plain JavaScript run by Chromium (not transformed by vitest), importing the built bundle.
const PAGE = `<!doctype html><title>verifier</title><script type="module">
try {
  const verifier = await import('/index.js');
  const file = await (await fetch('/vectors.json')).json();
  const run = async (backend) => {
    const got = [];
    for (const c of file.cases) {
      const { outcome } = await verifier.verifyCertificate(c.certificate, {
        publicKeys: file.publicKeys,
        product: c.product ?? file.product,
        fingerprint: c.fingerprint ?? file.fingerprint,
        appMajor: c.appMajor,
        now: c.now,
        highestIssuedAt: c.highestIssuedAt,
        backend,
      });
      got.push([c.name, outcome]);
    }
    return got;
  };
  const available = await verifier.availableBackends();
  const selected = await verifier.selectedBackend();
  const auto = await run('auto');
  const chunksBeforeNoble = performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname);
  const noble = await run('noble');
  const fingerprint = verifier.machineFingerprint('prd_browser', 'Zoë-PC 東京');
  window.harness = { available, selected, auto, noble, chunksBeforeNoble, fingerprint, userAgent: navigator.userAgent };
} catch (error) {
  window.harness = { error: String(error && error.stack || error) };
}
</script>`;

describe.skipIf(skipBrowserTests('browser-bundle.test'))('browser bundle in headless Chromium', () => {
  const vectors = loadVectors();
  const requested: string[] = [];
  let server: Server;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    assertBrowserPrerequisites();
    ({ server, origin } = await serveBundlePage(PAGE, {
      extra: { '/vectors.json': { type: 'application/json', body: JSON.stringify(vectors) } },
      onRequest: (path) => requested.push(path),
    }));
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await closeServer(server);
  });

  it('verifies every vector with WebCrypto (auto) and then with the lazily loaded noble fallback', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => 'harness' in window, undefined, { timeout: 20_000 });
    const result = await page.evaluate(() => (window as unknown as { harness: Harness }).harness);
    if ('error' in result) throw new Error(`in the page: ${result.error}`);
    const expected = vectors.cases.map((c) => [c.name, c.expected]);
    expect(errors).toEqual([]);
    expect(result.userAgent).toContain('Chrome/');
    expect(result.available).toEqual(['webcrypto', 'noble']);
    expect(result.selected).toBe('webcrypto');
    expect(result.auto).toEqual(expected);
    expect(result.noble).toEqual(expected);
    expect(result.fingerprint).toBe(createHash('sha256').update('svc:prd_browser:Zoë-PC 東京', 'utf8').digest('hex'));
    // The WebCrypto path never downloads the noble fallback; forcing noble does.
    expect(result.chunksBeforeNoble.some((path) => path.startsWith('/ed25519-'))).toBe(false);
    expect(requested.some((path) => path.startsWith('/ed25519-'))).toBe(true);
    await page.close();
  });

  it('contains no Node built-in imports in any of its files', () => {
    const files = readdirSync(BUNDLE).filter((file) => file.endsWith('.js'));
    expect(files).toContain('index.js');
    for (const file of files) {
      expect(readFileSync(join(BUNDLE, file), 'utf8')).not.toMatch(/["'](node:|fs["']|crypto["'])/);
    }
  });
});
