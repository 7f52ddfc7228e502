// Parse + sign baseline for the HTTP benchmark: one h3 route that reads the JSON body, builds a
// certificate-sized payload and signs it with Ed25519 in libuv's thread pool (node:crypto's
// callback form), as the service's validate does, on the same Node listener. Validate on the
// embedded store is reported as a ratio of it: what the service adds over the unavoidable work.
import { generateKeyPairSync, sign } from 'node:crypto';
import { H3 } from 'h3';
import { listen } from '@svc-licensing/server';

const { privateKey } = generateKeyPairSync('ed25519');
const signAsync = (data: Buffer) =>
  new Promise<Buffer>((resolve, reject) => sign(null, data, privateKey, (error, signature) => (error ? reject(error) : resolve(signature))));

const app = new H3().post('/sign', async (event) => {
  const body = (await event.req.json()) as { product: string; key: string; fingerprint: string };
  const now = Math.floor(Date.now() / 1000);
  const payload = Buffer.from(
    JSON.stringify({
      v: 1, kid: 'k1', product: body.product, license: 'lic_baseline', plan: 'pro', entitlements: [], status: 'perpetual', seats: 1,
      licensee: 'Baseline', fingerprint: body.fingerprint, paidUntil: null, validUntil: null, maxMajor: null, issuedAt: now,
      refreshAfter: now + 86_400, expiresAt: now + 30 * 86_400,
    }),
  ).toString('base64url');
  const signature = await signAsync(Buffer.from(`CRT1.${payload}`, 'ascii'));
  return { certificate: `CRT1.${payload}.${signature.toString('base64url')}` };
});
const server = await listen(app, { port: 0, host: '127.0.0.1', handleSignals: true });
process.stdout.write(`${JSON.stringify({ msg: 'listening', url: server.url })}\n`);
