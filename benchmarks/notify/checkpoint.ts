// What the embedded store's checkpoints cost per notification (issue 28): a store of N license
// creations, without and then with one subscribed endpoint (so N deliveries kept with their bodies,
// none sent), then timed checkpoints: CPU of this process for a first, full checkpoint and for a
// second after `more` creations (what a checkpoint writes again). Checkpoints only when asked
// (the trigger set out of reach), so each figure is one checkpoint's whole cost.
//   npx tsx notify/checkpoint.ts [creations=20000] [more=2000]
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLicenseEngine, createSecretBox } from '@svc-licensing/license-engine';
import { openEmbeddedStore } from '../../packages/server/src/stores/embedded/index.js';

const N = Number(process.argv[2] ?? 20000);
const MORE = Number(process.argv[3] ?? 2000);
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function measure(subscribed: boolean): Promise<{ full: number; again: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-checkpoint-'));
  const store = await openEmbeddedStore(join(dir, 'store'), { checkpointBytes: 4e12 });
  try {
    const engine = createLicenseEngine({ store, secrets: createSecretBox(new Uint8Array(randomBytes(32))), onNotificationsQueued: () => {} });
    const { account } = await engine.createAccount({ name: 'Bench', ownerEmail: 'bench@bench.test', servicePlan: 'unlimited' });
    if (subscribed) await engine.createWebhookEndpoint(account.id, { url: 'https://hooks.bench.test/svc' });
    const product = await engine.createProduct(account.id, { name: 'Bench Checkpoint', keyPrefix: 'BC-' });
    const plan = await engine.createPlan(account.id, product.id, { code: 'lifetime', kind: 'perpetual' });
    let created = 0;
    const create = (n: number) => Promise.all(Array.from({ length: 16 }, async () => {
      while (created < n) {
        created++;
        await engine.createLicense(account.id, { plan: plan.id, email: `buyer-${created}@bench.test`, sendEmail: false });
      }
    }));
    await create(N);
    let before = cpuMs();
    await store.checkpoint();
    const full = cpuMs() - before;
    await create(N + MORE);
    before = cpuMs();
    await store.checkpoint();
    return { full, again: cpuMs() - before };
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const rows: string[] = [];
for (const subscribed of [false, true, false, true]) {
  const { full, again } = await measure(subscribed);
  rows.push(`| ${subscribed ? 'with one endpoint' : 'without'} | ${N} | ${full.toFixed(0)} | ${((1000 * full) / N).toFixed(1)} | ${again.toFixed(0)} | ${((1000 * again) / MORE).toFixed(1)} |`);
}
console.log(`\n${cpus()[0]?.model}, ${cpus().length} cores, Node ${process.version}; load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
console.log(`| Creations | records | full checkpoint CPU ms | µs per creation | checkpoint after ${MORE} more, CPU ms | µs per new creation |`);
console.log('|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
