import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { exited, openFolderEngine, startServe } from '../support/cli-process.js';

/**
 * Kills a real `svc-licensing serve` with SIGKILL while clients create licenses, activate and
 * deactivate machines over HTTP, restarts it on the same data folder, and repeats. Afterwards
 * every acknowledged (2xx) write must be there and no transaction may be half-applied.
 */
let dir = '';
let child: ChildProcessWithoutNullStreams | null = null;
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

const unlimited = { SVC_RATE_LIMIT_VENDOR: '1000000000', SVC_RATE_LIMIT_CLIENT_KEY: '1000000000', SVC_RATE_LIMIT_CLIENT_IP: '1000000000' };

interface Acked {
  licenses: Map<string, string>; // license id → key
  activations: Set<string>; // `${licenseId} ${fingerprint}`
  deactivations: Set<string>;
  /** Deactivations sent: one cut off by the kill may or may not have committed. */
  deactivationsSent: Set<string>;
}

/** One client: license, three machines, one of them deactivated; again until the server dies. */
async function client(url: string, apiKey: string, productId: string, planId: string, acked: Acked): Promise<void> {
  const post = async (path: string, body: unknown, auth = false) => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
  for (;;) {
    let license: { id: string; key: string };
    try {
      license = (await post('/v1/licenses', { plan: planId, email: `c${randomBytes(6).toString('hex')}@example.test` }, true)) as typeof license;
    } catch (error) {
      if (error instanceof TypeError) return; // the server is gone (fetch failed)
      throw error;
    }
    acked.licenses.set(license.id, license.key);
    const fingerprints = [0, 1, 2].map(() => randomBytes(32).toString('hex'));
    try {
      for (const fingerprint of fingerprints) {
        await post('/v1/licenses/activate', { product: productId, key: license.key, fingerprint });
        acked.activations.add(`${license.id} ${fingerprint}`);
      }
      acked.deactivationsSent.add(`${license.id} ${fingerprints[0]}`);
      await post('/v1/licenses/deactivate', { product: productId, key: license.key, fingerprint: fingerprints[0] });
      acked.deactivations.add(`${license.id} ${fingerprints[0]}`);
    } catch (error) {
      if (error instanceof TypeError) return;
      throw error;
    }
  }
}

it('keeps every acknowledged HTTP write and no half transaction when the server is killed with SIGKILL, repeatedly', async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-crash-server-'));
  const data = join(dir, 'data');
  const setup = await openFolderEngine(data);
  const { account, apiKey } = await setup.engine.createAccount({ name: 'Crash Co', ownerEmail: 'owner@crash.test', servicePlan: 'unlimited' });
  const product = await setup.engine.createProduct(account.id, { name: 'Crash', keyPrefix: 'CRSH-' });
  const plan = await setup.engine.createPlan(account.id, product.id, { code: 'pro', kind: 'perpetual', maxActivations: 3 });
  await setup.store.close();

  const acked: Acked = { licenses: new Map(), activations: new Set(), deactivations: new Set(), deactivationsSent: new Set() };
  for (let round = 0; round < 8; round++) {
    const server = await startServe(['--data', data, '--port', '0'], unlimited);
    child = server.child;
    const clients = Array.from({ length: 6 }, () => client(server.url, apiKey.key, product.id, plan.id, acked));
    await new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * 800));
    server.child.kill('SIGKILL');
    expect(await exited(server.child)).toBe('SIGKILL');
    await Promise.all(clients);
  }
  // Not vacuous: writes of every kind were acknowledged between the kills.
  expect(acked.licenses.size).toBeGreaterThan(8);
  expect(acked.deactivations.size).toBeGreaterThan(0);

  const { store } = await openFolderEngine(data);
  try {
    const { licenses, activations } = await store.transaction(async (tx) => ({
      licenses: await tx.findMany('licenses', { accountId: account.id }),
      activations: await tx.findMany('activations', { accountId: account.id }),
    }));
    const licenseIds = new Set(licenses.map((l) => l.id));
    const present = new Set(activations.map((a) => `${a.licenseId} ${a.fingerprint}`));
    expect([...acked.licenses.keys()].filter((id) => !licenseIds.has(id))).toEqual([]);
    expect([...acked.activations].filter((a) => !acked.deactivationsSent.has(a) && !present.has(a))).toEqual([]);
    expect([...acked.deactivations].filter((a) => present.has(a))).toEqual([]);
    // No half transaction: each license's counter equals its activations, and no activation is orphaned.
    const perLicense = new Map<string, number>();
    for (const a of activations) perLicense.set(a.licenseId, (perLicense.get(a.licenseId) ?? 0) + 1);
    expect(licenses.filter((l) => l.activationCount !== (perLicense.get(l.id) ?? 0)).map((l) => l.id)).toEqual([]);
    expect(activations.filter((a) => !licenseIds.has(a.licenseId))).toEqual([]);
  } finally {
    await store.close();
  }
}, 120_000);
