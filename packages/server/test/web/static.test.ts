import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createHarness, MODES } from '../support/harness.js';
import { WEB_BUILD, webBuildFile } from '../support/web-build.js';

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** The files the dashboard's HTML loads, as written in it (relative to `/dashboard/`). */
function linkedFiles(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="(assets\/[^"]+)"/g)].map((m) => m[1]!);
}

describe.each(MODES)('the dashboard\'s files (%s)', (mode) => {
  it('serves the HTML without caching and with a strict CSP, and the hashed files it loads as immutable', async () => {
    const h = await createHarness(mode);
    const page = await h.fetch('/dashboard/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toBe(CSP);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const html = await page.text();
    expect(html).toBe(webBuildFile('dashboard/index.html').toString('utf8'));
    // No inline script or style anywhere: the CSP would block them.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|style="/);
    expect(html).not.toMatch(/https?:\/\//);

    const files = linkedFiles(html);
    expect(files.some((f) => f.endsWith('.js'))).toBe(true);
    expect(files.some((f) => f.endsWith('.css'))).toBe(true);
    for (const file of files) {
      const res = await h.fetch(`/dashboard/${file}`);
      expect(res.status, file).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const type = file.endsWith('.js') ? 'text/javascript; charset=utf-8' : file.endsWith('.css') ? 'text/css; charset=utf-8' : 'image/x-icon';
      expect(res.headers.get('content-type')).toBe(type);
      expect(res.headers.get('content-security-policy')).toBe(CSP);
      expect(Buffer.from(await res.arrayBuffer()).equals(webBuildFile(file))).toBe(true);
      expect(file).toMatch(/-[A-Z0-9]{8}\.(js|css|ico)$/);
    }
  });

  it('answers /favicon.ico with the icon every app page links (browsers ask every page of the origin for it)', async () => {
    const h = await createHarness(mode);
    const res = await h.fetch('/favicon.ico');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/x-icon');
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    const icon = Buffer.from(await res.arrayBuffer());
    // A Windows icon file: reserved 0, type 1 (icon), its images as PNGs of 16, 32 and 48 px.
    expect([icon.readUInt16LE(0), icon.readUInt16LE(2)]).toEqual([0, 1]);
    const sizes: number[] = [];
    for (let i = 0; i < icon.readUInt16LE(4); i++) {
      const entry = 6 + 16 * i;
      const png = icon.subarray(icon.readUInt32LE(entry + 12), icon.readUInt32LE(entry + 12) + icon.readUInt32LE(entry + 8));
      expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
      expect(png.readUInt32BE(16)).toBe(icon[entry]);
      sizes.push(icon[entry]!);
    }
    expect(sizes).toEqual([16, 32, 48]);
    const again = await h.fetch('/favicon.ico', { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
    // Each app's page links the same icon, under its own path (so the browser never asks for a missing one).
    for (const app of ['dashboard', 'portal']) {
      const html = webBuildFile(`${app}/index.html`).toString('utf8');
      const linked = /<link rel="icon" href="(assets\/favicon-[A-Z0-9]{8}\.ico)"/.exec(html)?.[1];
      expect(linked, app).toBeDefined();
      expect(webBuildFile(linked!).equals(icon)).toBe(true);
    }
    const linked = await h.fetch(`/dashboard/${/href="(assets\/favicon-[^"]+)"/.exec(await (await h.fetch('/dashboard/')).text())![1]}`);
    expect(linked.status).toBe(200);
    expect(Buffer.from(await linked.arrayBuffer()).equals(icon)).toBe(true);
  });

  it('answers 304 to a revalidation of an unchanged HTML and redirects the bare paths', async () => {
    const h = await createHarness(mode);
    const first = await h.fetch('/dashboard/');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await h.fetch('/dashboard/', { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const bare = await h.fetch('/dashboard?x=1', { redirect: 'manual' });
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe('/dashboard/?x=1');
    const root = await h.fetch('/', { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/dashboard/');
  });

  it('serves only files of the build: no other name, no folder, no way out of it', async () => {
    const h = await createHarness(mode);
    for (const path of [
      '/dashboard/assets/manifest.json',
      '/dashboard/assets/nothing-AAAAAAAA.js',
      '/dashboard/assets/..%2fmanifest.json',
      '/dashboard/assets/%2e%2e%2f%2e%2e%2fpackage.json',
      '/dashboard/assets/..%5c..%5cpackage.json',
    ]) {
      const res = await h.fetch(path);
      expect(res.status, path).toBe(404);
      expect(await res.text()).not.toContain('"name"');
    }
  });
});

describe('path traversal over a raw socket', () => {
  it('never answers a file outside the build, whatever the request line says', async () => {
    const h = await createHarness('node-server');
    const { port } = new URL((await h.fetch('/health')).url);
    const raw = (target: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.end(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
        let text = '';
        socket.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve(text)).on('error', reject);
      });
    const secret = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    for (const target of ['/dashboard/assets/../../package.json', '/dashboard/assets/../../../../server/package.json', '/dashboard/../package.json', '/dashboard/assets//etc/passwd']) {
      const text = await raw(target);
      expect(text, target).toMatch(/^HTTP\/1\.1 (404|400|308)/);
      expect(text).not.toContain(secret.slice(0, 40));
      expect(text).not.toContain('root:x:0:0');
    }
  });
});

describe('the web build', () => {
  it('keeps the initial JavaScript of each app under 60 KB gzipped', () => {
    const size = JSON.parse(readFileSync(`${WEB_BUILD}/size.json`, 'utf8')) as { apps: Record<string, { initialJsGzipBytes: number }> };
    expect(Object.keys(size.apps)).toContain('dashboard');
    for (const [app, s] of Object.entries(size.apps)) expect(s.initialJsGzipBytes, app).toBeLessThanOrEqual(60 * 1024);
  });
});
