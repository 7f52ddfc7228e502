// Builds every app of src/<app>/main.tsx into dist/: content-hashed JS and CSS in dist/assets/
// (chunks shared between apps are emitted once), the apps' icon (dist/assets/favicon-<hash>.ico,
// named in the manifest: the server also answers /favicon.ico with it), one dist/<app>/index.html
// per app that loads its entry from `assets/` and links the icon (relative, so an app works under
// any path prefix), dist/manifest.json (what the server serves) and dist/size.json (gzipped size
// of each app's initial JavaScript).
import { createHash } from 'node:crypto';
import { build } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { APPS } from './apps.mjs';
import { faviconIco } from './favicon.mjs';

const root = new URL('..', import.meta.url).pathname;
const src = join(root, 'src');
const dist = join(root, 'dist');
const assets = join(dist, 'assets');

const apps = APPS.filter((app) => existsSync(join(src, app.name, 'main.tsx')));
rmSync(dist, { recursive: true, force: true });
mkdirSync(assets, { recursive: true });

const result = await build({
  entryPoints: Object.fromEntries(apps.map((app) => [app.name, join(src, app.name, 'main.tsx')])),
  outdir: assets,
  bundle: true,
  splitting: true,
  format: 'esm',
  target: ['chrome100', 'firefox100', 'safari15'],
  minify: true,
  sourcemap: 'linked',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'none',
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
});

// The icon, named by its content like esbuild's files (eight base-32 characters), so it is cached for good.
const ico = faviconIco();
const icoHash = createHash('sha256').update(ico).digest().readBigUInt64BE(0).toString(32).toUpperCase().padStart(13, '0').slice(-8);
const favicon = `favicon-${icoHash}.ico`;
writeFileSync(join(assets, favicon), ico);

const outputs = result.metafile.outputs;
const rel = (path) => basename(path);
/** Every JS file an entry loads before it runs: the entry and its static imports, transitively. */
function initialJs(entry) {
  const seen = new Set();
  const walk = (path) => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const imp of outputs[path].imports) if (imp.kind === 'import-statement' && !imp.external) walk(imp.path);
  };
  walk(entry);
  return [...seen];
}

const escape = (text) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const manifest = { apps: {}, assets: readdirSync(assets).sort(), favicon };
const size = { apps: {} };
for (const app of apps) {
  const [entry, meta] = Object.entries(outputs).find(([, out]) => out.entryPoint?.endsWith(`${app.name}/main.tsx`));
  const js = initialJs(entry);
  const css = meta.cssBundle;
  const preload = js.filter((path) => path !== entry).map((path) => `<link rel="modulepreload" href="assets/${rel(path)}">`);
  // No inline script or style: the server's Content-Security-Policy allows only files from 'self'.
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>${escape(app.title)}</title>
<link rel="icon" href="assets/${favicon}" sizes="16x16 32x32 48x48">
${css ? `<link rel="stylesheet" href="assets/${rel(css)}">\n` : ''}${preload.join('\n')}${preload.length ? '\n' : ''}<script type="module" src="assets/${rel(entry)}"></script>
</head>
<body>
<div id="app" class="app-root"><p class="boot">${escape(app.loading)}</p></div>
</body>
</html>
`;
  mkdirSync(join(dist, app.name), { recursive: true });
  writeFileSync(join(dist, app.name, 'index.html'), html);
  manifest.apps[app.name] = { html: `${app.name}/index.html`, entry: rel(entry), css: css ? rel(css) : null, initialJs: js.map(rel) };
  const files = js.map((path) => {
    const body = readFileSync(join(root, path));
    return { file: rel(path), bytes: body.length, gzipBytes: gzipSync(body, { level: 9 }).length };
  });
  const cssBody = css ? readFileSync(join(root, css)) : null;
  size.apps[app.name] = {
    initialJsBytes: files.reduce((n, f) => n + f.bytes, 0),
    initialJsGzipBytes: files.reduce((n, f) => n + f.gzipBytes, 0),
    cssGzipBytes: cssBody ? gzipSync(cssBody, { level: 9 }).length : 0,
    files,
  };
}
writeFileSync(join(dist, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
writeFileSync(join(dist, 'size.json'), `${JSON.stringify(size, null, 2)}\n`);

for (const [name, s] of Object.entries(size.apps)) {
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`web ${name}: initial JS ${kb(s.initialJsBytes)} (${kb(s.initialJsGzipBytes)} gzipped, budget 60 KB), CSS ${kb(s.cssGzipBytes)} gzipped`);
  if (s.initialJsGzipBytes > 60 * 1024) {
    console.error(`web ${name}: initial JavaScript is over the 60 KB gzipped budget`);
    process.exitCode = 1;
  }
}
