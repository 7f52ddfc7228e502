import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLicenseEngine, createSecretBox } from '@svc-licensing/license-engine';
import type { Store } from '@svc-licensing/license-engine';
import { cleanEnv } from '../../support/cli-process.js';
import { openEmbeddedStore } from '../../../src/stores/embedded/index.js';
import { createMySqlStore } from '../../../src/stores/mysql/index.js';
import { startReceiver } from './receiver.js';
import type { Receiver } from './receiver.js';
import { selfSignedCertificate } from './tls-certificate.js';

/**
 * What the tests of real `serve` processes sending notifications share: a receiver over HTTPS whose
 * certificate the processes trust (NODE_EXTRA_CA_CERTS, as the docs tell operators), the
 * environment that allows it (`SVC_NOTIFY_ALLOW=127.0.0.1`), and an account with a product, a plan
 * and an endpoint at the receiver, made in-process on the store before the servers start.
 */
export interface ServeWorld {
  receiver: Receiver;
  env: Record<string, string>;
  masterKey: Uint8Array;
  close(): Promise<void>;
}

export async function serveWorld(): Promise<ServeWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-notify-serve-'));
  const certificate = selfSignedCertificate(['127.0.0.1']);
  const ca = join(dir, 'receiver-ca.pem');
  await writeFile(ca, certificate.cert);
  const receiver = await startReceiver(certificate);
  const masterKey = new Uint8Array(randomBytes(32));
  const env = {
    ...cleanEnv,
    SVC_MASTER_KEY: Buffer.from(masterKey).toString('base64'),
    SVC_NOTIFY_ALLOW: '127.0.0.1',
    NODE_EXTRA_CA_CERTS: ca,
    SVC_OUTBOX_DIR: join(dir, 'mail'),
    SVC_RATE_LIMIT_VENDOR: '100000000',
    SVC_RATE_LIMIT_CLIENT_KEY: '100000000',
    SVC_RATE_LIMIT_CLIENT_IP: '100000000',
  };
  return {
    receiver, env, masterKey,
    async close() {
      await receiver.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Opens the store a `serve` will use (a data folder, or a MySQL URL), for setup and for reading it after. */
export async function openStoreAt(location: { dataDir: string } | { databaseUrl: string }): Promise<Store> {
  if ('dataDir' in location) return openEmbeddedStore(location.dataDir);
  const store = createMySqlStore(location.databaseUrl);
  await store.ready();
  return store;
}

/** An account (unlimited), a perpetual plan and an endpoint at `url`; the receiver verifies with its secret. */
export async function prepareAccount(world: ServeWorld, store: Store, url: string): Promise<{ accountId: string; apiKey: string; planId: string; endpointId: string }> {
  const engine = createLicenseEngine({ store, secrets: createSecretBox(world.masterKey) });
  const { account, apiKey } = await engine.createAccount({ name: 'Notified', ownerEmail: 'owner@notified.test', servicePlan: 'unlimited' });
  const product = await engine.createProduct(account.id, { name: 'App', keyPrefix: 'APP' });
  const plan = await engine.createPlan(account.id, product.id, { code: 'life', kind: 'perpetual' });
  const endpoint = await engine.createWebhookEndpoint(account.id, { url, events: ['license.created'] });
  world.receiver.secrets.push(endpoint.secret);
  return { accountId: account.id, apiKey: apiKey.key, planId: plan.id, endpointId: endpoint.id };
}

/** Creates a license over HTTP; the id, or null when the server answered otherwise or is gone. */
export async function createLicense(url: string, apiKey: string, planId: string, failures?: string[]): Promise<string | null> {
  try {
    const res = await fetch(`${url}/v1/licenses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ plan: planId, email: `c${randomBytes(6).toString('hex')}@example.test` }),
    });
    const text = await res.text();
    if (res.status === 201) return (JSON.parse(text) as { id?: string }).id ?? null;
    failures?.push(`${res.status} ${text}`);
    return null;
  } catch (error) {
    failures?.push(String((error as Error)?.stack ?? error));
    return null;
  }
}

/** The license ids each verified `license.created` delivery named, by `webhook-id`. */
export function deliveredLicenses(receiver: Receiver, upTo = receiver.received.length): Map<string, { licenseId: string; count: number }> {
  const out = new Map<string, { licenseId: string; count: number }>();
  for (const r of receiver.received.slice(0, upTo)) {
    if (r.verifiedWith.length === 0) continue;
    const id = String(r.headers['webhook-id']);
    const payload = r.payload as { type: string; data: { id: string } };
    if (payload.type !== 'license.created') continue;
    const seen = out.get(id);
    if (seen) seen.count++;
    else out.set(id, { licenseId: payload.data.id, count: 1 });
  }
  return out;
}

/** Waits until `condition` holds (checked every 50 ms), or fails naming `what`. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
