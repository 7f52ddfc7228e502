// Crypto benchmarks of the CRT1 format and the verifier, with raw node:crypto Ed25519 as the baseline
// measured in the same run. Needs a build (`pnpm build`); run from the repo root with `pnpm bench`.
import { createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { bench, do_not_optimize, group, measure, run, summary } from 'mitata';
import { base64urlEncode, certificateTimes, decodeCertificate, machineFingerprint, type CertificatePayload } from '@svc-licensing/cert-format';
import { createCertificateSigner, publicKeyFromSeed, seedToPkcs8 } from '@svc-licensing/cert-format/sign';
import { verifyCertificate, type BackendName } from '@svc-licensing/verifier';

const seed = new Uint8Array(32).fill(7); // benchmark-only key
const product = 'prd_benchmark01';
const fingerprint = machineFingerprint(product, 'bench-machine');
const publicKeys = { k1: base64urlEncode(publicKeyFromSeed(seed)) };
const signer = createCertificateSigner(seed);
const issuedAt = 1_767_225_600;

function issue(): string {
  const validUntil = issuedAt + 37 * 86_400;
  const payload: CertificatePayload = {
    v: 1, kid: 'k1', product, license: 'lic_0123456789abcdef', plan: 'pro', entitlements: ['export', 'sync'],
    status: 'active', seats: 1, licensee: 'Benchmark Customer Ltd', fingerprint,
    paidUntil: issuedAt + 30 * 86_400, validUntil, maxMajor: null, issuedAt,
    ...certificateTimes({ kind: 'subscription', issuedAt, validUntil, offlineDays: 7 }),
  };
  return signer.sign(payload);
}

const certificate = issue();
const signingInput = Buffer.from(certificate.slice(0, certificate.lastIndexOf('.')));
const signature = Buffer.from(certificate.slice(certificate.lastIndexOf('.') + 1), 'base64url');
const privateKey = createPrivateKey({ key: Buffer.from(seedToPkcs8(seed)), format: 'der', type: 'pkcs8' });
const publicKey = createPublicKey(privateKey);
const options = { publicKeys, product, fingerprint, appMajor: 1, now: issuedAt + 60 };
for (const backend of ['node', 'webcrypto', 'noble'] as const) {
  const { outcome } = await verifyCertificate(certificate, { ...options, backend });
  if (outcome !== 'valid') throw new Error(`${backend} backend gave ${outcome}`);
}

group('issue', () => {
  summary(() => {
    bench('raw node:crypto Ed25519 sign', () => do_not_optimize(nodeSign(null, signingInput, privateKey)));
    bench('certificate issue (payload + encode + sign)', () => do_not_optimize(issue()));
  });
});
group('verify', () => {
  summary(() => {
    bench('raw node:crypto Ed25519 verify', () => do_not_optimize(nodeVerify(null, signingInput, publicKey, signature)));
    for (const backend of ['node', 'webcrypto', 'noble'] as BackendName[]) {
      bench(`verifyCertificate (${backend})`, async () => do_not_optimize(await verifyCertificate(certificate, { ...options, backend })));
    }
  });
});
group('decode', () => {
  bench('decodeCertificate', () => do_not_optimize(decodeCertificate(certificate)));
});

await run();

// Ratios from paired rounds: baseline and ours measured back to back, 7 times, comparing medians
// (p50) and reporting the median ratio, so load from other processes affects both sides alike.
const us = (ns: number) => `${(ns / 1000).toFixed(2)} µs`;
async function pairedRatio(label: string, baseline: () => unknown, ours: () => unknown, target: number): Promise<string> {
  const ratios: number[] = [];
  const base: number[] = [];
  const mine: number[] = [];
  for (let round = 0; round < 7; round++) {
    const b = (await measure(baseline)).p50;
    const o = (await measure(ours)).p50;
    base.push(b);
    mine.push(o);
    ratios.push(b / o);
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const r = median(ratios);
  return `${label}: ours p50 ${us(median(mine))}, baseline p50 ${us(median(base))} → ${r.toFixed(3)}x (target >= ${target}x) ${r >= target ? 'OK' : 'BELOW TARGET'}`;
}
const issueLine = await pairedRatio('issue vs raw node:crypto sign', () => nodeSign(null, signingInput, privateKey), issue, 0.9);
const verifyLine = await pairedRatio(
  'verifyCertificate (node) vs raw node:crypto verify',
  () => nodeVerify(null, signingInput, publicKey, signature),
  () => verifyCertificate(certificate, { ...options, backend: 'node' }),
  0.9,
);
const p50 = async (fn: () => unknown) => us((await measure(fn)).p50);

// Browser bundle sizes (minified + gzip -9), from the built dist/browser files.
const dir = new URL('../packages/verifier/dist/browser/', import.meta.url);
const gz = (bytes: Uint8Array | string) => gzipSync(bytes, { level: 9 }).length;
const staticClosure = (file: string, seen = new Set<string>()): Set<string> => {
  seen.add(file);
  const text = readFileSync(new URL(file, dir), 'utf8');
  for (const [, dep] of text.matchAll(/(?:^|[;}\s])(?:import|export)\s*[^'"()]*?from\s*["']\.\/([\w-]+\.js)["']/g)) {
    if (dep !== undefined && !seen.has(dep)) staticClosure(dep, seen);
  }
  return seen;
};
const fileSize = (files: Iterable<string>) => [...files].reduce((n, f) => n + gz(readFileSync(new URL(f, dir))), 0);
const entryPath = staticClosure('index.js');
const allFiles = readdirSync(dir).filter((f) => f.endsWith('.js'));
// What an app importing only verifyCertificate ships: the browser build tree-shaken by esbuild
// (the one tsup uses), keeping the lazy noble chunk separate.
// The part of esbuild's API used here (esbuild is tsup's dependency, not one of ours, so no types).
interface EsbuildOutput {
  outputFiles: { path: string; contents: Uint8Array }[];
  metafile: { outputs: Record<string, { entryPoint?: string; imports: { path: string; kind: string }[] }> };
}
const esbuild = createRequire(createRequire(import.meta.url).resolve('tsup'))('esbuild') as { build(options: object): Promise<EsbuildOutput> };
const shaken = await esbuild.build({
  stdin: { contents: `export { verifyCertificate } from ${JSON.stringify(new URL('index.js', dir).pathname)};`, resolveDir: dir.pathname, loader: 'js' },
  bundle: true, minify: true, format: 'esm', splitting: true, platform: 'browser', outdir: '/tmp/verifier-size', write: false, metafile: true,
});
const entryOut = Object.entries(shaken.metafile.outputs).find(([, o]) => o.entryPoint !== undefined)!;
const shakenFiles = [entryOut[0], ...entryOut[1].imports.filter((i) => i.kind === 'import-statement').map((i) => i.path)];
const shakenSize = shaken.outputFiles.filter((f) => shakenFiles.some((name) => f.path.endsWith(name.replace(/^.*\//, '/')))).reduce((n, f) => n + gz(f.contents), 0);

console.log('\n== results ==');
console.log(`machine: ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}, Node ${process.version}, ${process.platform}/${process.arch}`);
console.log(issueLine);
console.log(verifyLine);
for (const backend of ['webcrypto', 'noble'] as const) {
  console.log(`verifyCertificate (${backend}) p50: ${await p50(() => verifyCertificate(certificate, { ...options, backend }))}`);
}
console.log(`decodeCertificate p50: ${await p50(() => decodeCertificate(certificate))}`);
console.log(`browser bundle, verifyCertificate only (WebCrypto path, tree-shaken): ${shakenSize} bytes min+gzip (target <= 8192)`);
console.log(`browser bundle, whole entry incl. client SDK (${[...entryPath].join(' + ')}): ${fileSize(entryPath)} bytes min+gzip`);
console.log(`browser bundle, all files incl. lazy noble fallback: ${fileSize(allFiles)} bytes min+gzip`);
