// RVL1 revocation lists (issue 29): list sizes at 100,000 and 1,000 entries; checking a certificate
// against a 100,000-entry list (verify + lookup) against a plain verify in the same run; loading
// (verify + index) a 100,000-entry list in Node and in headless Chromium with the built browser bundle.
// Needs a build (`pnpm build`); run from the repo root with `pnpm --filter ./benchmarks bench:revocation`.
import { readFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { gzipSync } from 'node:zlib';
import { bench, do_not_optimize, group, measure, run, summary } from 'mitata';
import { chromium } from 'playwright-core';
import { base64urlEncode, certificateTimes, machineFingerprint, type CertificatePayload, type RevocationListInput } from '@svc-licensing/cert-format';
import { createCertificateSigner, publicKeyFromSeed, signRevocationList } from '@svc-licensing/cert-format/sign';
import { verifyCertificate, verifyRevocationList, type RevocationList } from '@svc-licensing/verifier';

const seed = new Uint8Array(32).fill(7); // benchmark-only key
const product = 'prd_benchmark01';
const publicKeys = { k1: base64urlEncode(publicKeyFromSeed(seed)) };
const issuedAt = 1_767_225_600;
const DAY = 86_400;
const fingerprint = machineFingerprint(product, 'bench-machine');

// Entries shaped like a real vendor's: license IDs as the service makes them (lic_ + 26 characters),
// drop-out instants spread over the year a certificate can live, freeings over the past year.
const licenseId = (i: number) => `lic_${i.toString(36).padStart(26, '0')}`;
function entries(licenses: number, activations: number): Pick<RevocationListInput, 'licenses' | 'activations'> {
  return {
    licenses: Array.from({ length: licenses }, (_, i) => ({ license: licenseId(i), until: issuedAt + 1 + (i % 365) * DAY })),
    activations: Array.from({ length: activations }, (_, i) => {
      const freedAt = issuedAt - (i % 364) * DAY - (i % 86_399);
      return { license: licenseId(1_000_000 + i), fingerprint: machineFingerprint(product, `machine-${i}`), freedAt, until: freedAt + 365 * DAY };
    }),
  };
}
const sign = (licenses: number, activations: number, seq = 1) =>
  signRevocationList({ kid: 'k1', product, seq, issuedAt, ...entries(licenses, activations) }, seed);

// --- sizes ---
const sizes: [string, number, string][] = [];
const lists = new Map<string, string>();
for (const [name, licenses, activations, target] of [
  ['100,000 entries: 50,000 licenses + 50,000 machines', 50_000, 50_000, '2 MB'],
  ['100,000 entries: all licenses', 100_000, 0, '2 MB'],
  ['100,000 entries: all machines (the largest kind)', 0, 100_000, '2 MB'],
  ['1,000 entries: 500 licenses + 500 machines', 500, 500, '40 KB'],
  ['1,000 entries: all machines', 0, 1_000, '40 KB'],
] as const) {
  const text = sign(licenses, activations);
  lists.set(name, text);
  sizes.push([name, text.length, target]);
}
const list100k = lists.get('100,000 entries: 50,000 licenses + 50,000 machines')!;

// --- check against a 100,000-entry list vs a plain verify (Node, node:crypto backend) ---
const signer = createCertificateSigner(seed);
const validUntil = issuedAt + 37 * DAY;
const payload: CertificatePayload = {
  v: 1, kid: 'k1', product, license: 'lic_0123456789abcdefghijklmnop', plan: 'pro', entitlements: ['export', 'sync'],
  status: 'active', seats: 1, licensee: 'Benchmark Customer Ltd', fingerprint,
  paidUntil: issuedAt + 30 * DAY, validUntil, maxMajor: null, issuedAt,
  ...certificateTimes({ kind: 'subscription', issuedAt, validUntil, offlineDays: 7 }),
};
const certificate = signer.sign(payload); // not listed: both lookups run and find nothing
const listedCertificate = signer.sign({ ...payload, license: licenseId(7) });
const checked = await verifyRevocationList(list100k, { publicKeys, product, backend: 'node' });
if (checked.outcome !== 'valid') throw new Error(`the 100,000-entry list gave ${checked.outcome}`);
const revocations: RevocationList = checked.list;
const options = { publicKeys, product, fingerprint, appMajor: 1, now: issuedAt + 60, backend: 'node' as const };
const withList = { ...options, revocations };
if ((await verifyCertificate(certificate, withList)).outcome !== 'valid') throw new Error('the unlisted certificate is not valid');
if ((await verifyCertificate(listedCertificate, withList)).outcome !== 'revoked') throw new Error('the listed certificate is not revoked');

group('check a certificate (node backend)', () => {
  summary(() => {
    bench('verifyCertificate, no list', async () => do_not_optimize(await verifyCertificate(certificate, options)));
    bench('verifyCertificate + 100,000-entry list (not listed)', async () => do_not_optimize(await verifyCertificate(certificate, withList)));
    bench('verifyCertificate + 100,000-entry list (listed: revoked)', async () => do_not_optimize(await verifyCertificate(listedCertificate, withList)));
  });
});
group('load a list in Node (verify + index)', () => {
  bench('verifyRevocationList, 100,000 entries (node)', async () => do_not_optimize(await verifyRevocationList(list100k, { publicKeys, product, backend: 'node' })));
});
await run();

const us = (ns: number) => `${(ns / 1000).toFixed(2)} µs`;
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
// Paired rounds as in crypto.bench.ts: baseline and ours back to back, 7 times, median of the ratios.
const ratios: number[] = [];
const base: number[] = [];
const mine: number[] = [];
for (let round = 0; round < 7; round++) {
  const b = (await measure(async () => verifyCertificate(certificate, options))).p50;
  const o = (await measure(async () => verifyCertificate(certificate, withList))).p50;
  base.push(b);
  mine.push(o);
  ratios.push(b / o);
}
const ratio = median(ratios);
const nodeLoad = (await measure(async () => verifyRevocationList(list100k, { publicKeys, product, backend: 'node' }))).p50;

// --- loading in Chromium: a fresh page per round, the list fetched as text, then verify + index ---
const bundle = new URL('../packages/verifier/dist/browser/', import.meta.url).pathname;
if (!existsSync(`${bundle}index.js`)) throw new Error('run pnpm build first (packages/verifier/dist/browser is missing)');
const PAGE = `<!doctype html><title>bench</title><script type="module">
const verifier = await import('/index.js');
const text = await (await fetch('/list.txt')).text();
const config = await (await fetch('/config.json')).json();
const keys = { publicKeys: config.publicKeys, product: config.product };
let list = null;
window.load = async () => {
  const t = performance.now();
  const result = await verifier.verifyRevocationList(text, keys);
  const ms = performance.now() - t;
  list = result.list;
  return { outcome: result.outcome, ms };
};
// The floor of any signed text of this size: encode it and check one Ed25519 signature over it.
window.floor = async () => {
  const t = performance.now();
  const dot = text.lastIndexOf('.');
  const key = await crypto.subtle.importKey('raw', Uint8Array.fromBase64(config.publicKeys.k1, { alphabet: 'base64url' }), { name: 'Ed25519' }, false, ['verify']);
  const message = new Uint8Array(dot);
  new TextEncoder().encodeInto(text.slice(0, dot), message);
  const ok = await crypto.subtle.verify({ name: 'Ed25519' }, key, Uint8Array.fromBase64(text.slice(dot + 1), { alphabet: 'base64url' }), message);
  return ok ? performance.now() - t : -1;
};
window.again = async () => {
  const t = performance.now();
  await verifier.verifyRevocationList(text, keys);
  return performance.now() - t;
};
window.pairs = async () => {
  const options = { publicKeys: config.publicKeys, product: config.product, fingerprint: config.fingerprint, appMajor: 1, now: config.now };
  const withList = { ...options, revocations: list };
  const loop = async (o, n) => { const t = performance.now(); for (let i = 0; i < n; i++) await verifier.verifyCertificate(config.certificate, o); return (performance.now() - t) / n; };
  await loop(options, 300); await loop(withList, 300);
  const ratios = [];
  for (let i = 0; i < 5; i++) { const b = await loop(options, 300); const o = await loop(withList, 300); ratios.push(b / o); }
  return ratios;
};
window.ready = { native: typeof Uint8Array.fromBase64 === 'function', ua: navigator.userAgent };
</script>`;
const config = JSON.stringify({ publicKeys, product, fingerprint, certificate, now: issuedAt + 60 });
const server = createServer((req, res) => {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  if (path === '/') res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  else if (path === '/list.txt') res.writeHead(200, { 'content-type': 'text/plain' }).end(list100k);
  else if (path === '/config.json') res.writeHead(200, { 'content-type': 'application/json' }).end(config);
  else if (/^\/[\w-]+\.js$/.test(path) && existsSync(bundle + path)) res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(bundle + path));
  else res.writeHead(404).end();
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const rounds: { first: number; floor: number; again: number[]; pairs: number[] }[] = [];
let about = { native: false, ua: '' };
for (let round = 0; round < 9; round++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  await page.waitForFunction(() => 'ready' in window, undefined, { timeout: 120_000 });
  about = await page.evaluate(() => (window as any).ready);
  const loaded: { outcome: string; ms: number } = await page.evaluate(() => (window as any).load());
  if (loaded.outcome !== 'valid') throw new Error(`Chromium gave ${loaded.outcome}`);
  const floor: number = await page.evaluate(() => (window as any).floor());
  if (floor < 0) throw new Error('the floor measurement did not verify');
  const again: number[] = [];
  for (let i = 0; i < 3; i++) again.push(await page.evaluate(() => (window as any).again()));
  const pairs: number[] = await page.evaluate(() => (window as any).pairs());
  rounds.push({ first: loaded.ms, floor, again, pairs });
  await context.close();
}
await browser.close();
server.close();

const ms = (x: number) => `${x.toFixed(1)} ms`;
console.log('\n== results ==');
console.log(`machine: ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}, Node ${process.version}, ${process.platform}/${process.arch}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
for (const [name, bytes, target] of sizes) console.log(`size, ${name}: ${bytes.toLocaleString('en')} bytes (gzip -9: ${gzipSync(lists.get(name)!, { level: 9 }).length.toLocaleString('en')}) (target < ${target})`);
console.log(`check vs plain verify (node backend, 100,000-entry list, unlisted certificate): ours p50 ${us(median(mine))}, plain p50 ${us(median(base))} → ${ratio.toFixed(3)}x (target >= 0.9x) ${ratio >= 0.9 ? 'OK' : 'BELOW TARGET'}`);
console.log(`load (verify + index) a 100,000-entry list in Node (node backend) p50: ${ms(nodeLoad / 1e6)}`);
console.log(`Chromium: ${about.ua}; Uint8Array.fromBase64: ${about.native}`);
console.log(`load (verify + index) a 100,000-entry list in Chromium (webcrypto), first call in a fresh page, median of ${rounds.length} pages: ${ms(median(rounds.map((r) => r.first)))} wall, min ${ms(Math.min(...rounds.map((r) => r.first)))} (all: ${rounds.map((r) => r.first.toFixed(1)).join(', ')}) (target < 50 ms)`);
console.log(`  in the same pages, encoding the 1.8 MB text and checking its Ed25519 signature alone (WebCrypto): median ${ms(median(rounds.map((r) => r.floor)))}, min ${ms(Math.min(...rounds.map((r) => r.floor)))}; first load / that, median of the pages: ${median(rounds.map((r) => r.first / r.floor)).toFixed(2)}`);
console.log(`load again in the same page (warm), median: ${ms(median(rounds.flatMap((r) => r.again)))} wall, min ${ms(Math.min(...rounds.flatMap((r) => r.again)))}`);
console.log(`check vs plain verify in Chromium (webcrypto), median of ${rounds.length * 5} paired loops: ${median(rounds.flatMap((r) => r.pairs)).toFixed(3)}x`);
