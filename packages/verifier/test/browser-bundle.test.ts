import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadVectors } from '../../../test-vectors/load.js';

// Loads the BUILT browser bundle (dist/browser, built by `pnpm build`) into Debian's headless
// Chromium and checks every published vector in the page, with WebCrypto and with the noble fallback.
const CHROMIUM = '/usr/bin/chromium';
const BUNDLE = new URL('../dist/browser/', import.meta.url).pathname;
const hasChromium = existsSync(CHROMIUM);
const inCI = process.env.CI === 'true' || process.env.CI === '1';

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

if (!hasChromium && !inCI) {
  console.warn(`browser-bundle.test: SKIPPED, ${CHROMIUM} is missing (apt-get install chromium); under CI=true this fails instead.`);
}

describe.skipIf(!hasChromium && !inCI)('browser bundle in headless Chromium', () => {
  const vectors = loadVectors();
  const requested: string[] = [];
  let server: Server;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    if (!hasChromium) throw new Error(`${CHROMIUM} is missing: the browser test cannot run under CI`);
    if (!existsSync(join(BUNDLE, 'index.js'))) throw new Error(`${BUNDLE}index.js is missing: run pnpm build first`);
    server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      requested.push(path);
      if (path === '/') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
      } else if (path === '/vectors.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(vectors));
      } else if (/^\/[\w-]+\.js$/.test(path) && existsSync(join(BUNDLE, path))) {
        res.writeHead(200, { 'content-type': extname(path) === '.js' ? 'text/javascript' : 'text/plain' }).end(readFileSync(join(BUNDLE, path)));
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
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
