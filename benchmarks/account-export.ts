// Account export memory: an account of 1,000,000 licenses (plus customers and activations) on the
// embedded store, exported through the server's streaming response and read to the end. Prints the
// process's heap and RSS before and during the export (peak of samples every 100 ms, and the live
// heap after a forced GC every second), the size of
// the document and the time taken. Run with --expose-gc so the baseline is measured after a GC:
//
//   node --expose-gc --max-old-space-size=8192 --import tsx benchmarks/account-export.ts [licenses] [embedded|mysql]
//
// mysql: a database `svc_bench_export` on SVC_BENCH_MYSQL (default mysql://root@127.0.0.1:3306) is
// created, migrated, loaded with multi-row INSERTs (copies of one license made by the engine, each
// with its own ID and key hash) and dropped at the end; customers and activations are not added.
import { randomBytes } from 'node:crypto';
import { hashLicenseKey } from '@svc-licensing/cert-format';
import { createIdGenerator, createLicenseEngine, createSecretBox, cryptoRandom, systemClock } from '@svc-licensing/license-engine';
import type { ActivationRecord, CustomerRecord, LicenseRecord } from '@svc-licensing/license-engine';
import { createConnection } from 'mysql2/promise';
import { createStorage } from 'unstorage';
import { createEmbeddedStore } from '../packages/server/src/stores/embedded/index.js';
import { createMySqlStore, migrate } from '../packages/server/src/stores/mysql/index.js';
import { tables } from '../packages/server/src/stores/mysql/schema.js';
import { exportResponse } from '../packages/server/src/routes/account-export.js';

const LICENSES = Number(process.argv[2] ?? 1_000_000);
const PER_CUSTOMER = 10; // customers = licenses / 10
const ACTIVATED_EVERY = 10; // activations = licenses / 10
const BATCH = 10_000;
const MB = (n: number) => Math.round(n / 1024 / 1024);
const gc = (globalThis as { gc?: () => void }).gc;

const KIND = process.argv[3] === 'mysql' ? 'mysql' : 'embedded';
const SERVER = process.env.SVC_BENCH_MYSQL ?? 'mysql://root@127.0.0.1:3306';
const DATABASE_URL = `${SERVER}/svc_bench_export`;
if (KIND === 'mysql') {
  const admin = await createConnection({ uri: SERVER });
  await admin.query('DROP DATABASE IF EXISTS `svc_bench_export`');
  await admin.end();
  await migrate(DATABASE_URL);
}
// The embedded store with snapshots in memory (no journal), or MariaDB.
const store = KIND === 'mysql' ? createMySqlStore(DATABASE_URL) : await createEmbeddedStore({ storage: createStorage() });
const secrets = createSecretBox(new Uint8Array(randomBytes(32)));
const ids = createIdGenerator({ clock: systemClock, random: cryptoRandom });
const engine = createLicenseEngine({ store, secrets, ids });

const { account } = await engine.createAccount({ name: 'Bench', ownerEmail: 'owner@bench.test', servicePlan: 'unlimited' });
const product = await engine.createProduct(account.id, { name: 'Bench App', keyPrefix: 'BN-' });
const plan = await engine.createPlan(account.id, product.id, { code: 'pro', kind: 'perpetual', maxActivations: 10 });

const started = Date.now();
const at = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
let customer: CustomerRecord | null = null;
if (KIND === 'mysql') await bulkLoad();
for (let done = 0; KIND === 'embedded' && done < LICENSES; done += BATCH) {
  await store.transaction(async (tx) => {
    for (let i = done; i < Math.min(done + BATCH, LICENSES); i++) {
      if (i % PER_CUSTOMER === 0) {
        customer = { id: ids.next('cus'), accountId: account.id, email: `c${i}@bench.test`, name: `Customer ${i}`, createdAt: at, updatedAt: at };
        await tx.insert('customers', customer);
      }
      const key = `BN-${randomBytes(10).toString('hex').toUpperCase().match(/.{5}/g)!.join('-')}`;
      const id = ids.next('lic');
      const license: LicenseRecord = {
        id, accountId: account.id, productId: product.id, planId: plan.id, planCode: 'pro', customerId: customer!.id,
        customerEmail: customer!.email, customerName: customer!.name, status: 'perpetual', heldStatus: null, seats: 1, maxActivations: null,
        maxMajorOverride: null, paidUntil: null, keyHash: hashLicenseKey(key), keyEncrypted: secrets.encrypt(new TextEncoder().encode(key), { purpose: 'license-key', record: id }),
        provider: null, integrationId: null, subscriptionId: null, orderId: null, lastEventKey: null,
        activationCount: i % ACTIVATED_EVERY === 0 ? 1 : 0, locale: 'en', createdAt: at, updatedAt: at,
      };
      await tx.insert('licenses', license);
      if (i % ACTIVATED_EVERY === 0) {
        const activation: ActivationRecord = {
          id: ids.next('act'), accountId: account.id, licenseId: license.id, fingerprint: randomBytes(32).toString('hex'), name: null,
          platform: 'linux', appVersion: '1.0.0', createdAt: at, lastSeenAt: at,
        };
        await tx.insert('activations', activation);
      }
    }
  });
}
const seededIn = (Date.now() - started) / 1000;

/** MariaDB: one license through the engine, then copies of its row in multi-row INSERTs. */
async function bulkLoad(): Promise<void> {
  await engine.createLicense(account.id, { plan: plan.id, email: 'template@bench.test' });
  const db = await createConnection({ uri: DATABASE_URL });
  const [rows] = await db.query('SELECT `doc` FROM `licenses` ORDER BY `id` LIMIT 1');
  const template = JSON.parse((rows as { doc: string }[])[0]!.doc) as Record<string, unknown>;
  const map = tables.licenses;
  const columns = ['id', 'doc', ...map.columns.values()].map((c) => `\`${c}\``).join(', ');
  const row = `(${Array(2 + map.columns.size).fill('?').join(', ')})`;
  for (let done = 1; done < LICENSES; done += 2000) {
    const n = Math.min(2000, LICENSES - done);
    const values: unknown[] = [];
    for (let i = 0; i < n; i++) {
      const record = { ...template, id: ids.next('lic'), keyHash: randomBytes(32).toString('hex') } as Record<string, unknown>;
      values.push(record.id, JSON.stringify(record), ...[...map.columns.keys()].map((f) => (record[f] ?? null) as unknown));
    }
    await db.query(`INSERT INTO \`licenses\` (${columns}) VALUES ${Array(n).fill(row).join(', ')}`, values);
  }
  await db.end();
}

gc?.();
gc?.();
const before = process.memoryUsage();
let peakHeap = before.heapUsed;
let peakLive = before.heapUsed;
let peakRss = before.rss;
let ticks = 0;
const sampler = setInterval(() => {
  // Every second a full GC first: what is still referenced (live), not garbage V8 has not collected yet.
  if (gc && ++ticks % 10 === 0) {
    gc();
    peakLive = Math.max(peakLive, process.memoryUsage().heapUsed);
  }
  const m = process.memoryUsage();
  peakHeap = Math.max(peakHeap, m.heapUsed);
  peakRss = Math.max(peakRss, m.rss);
}, 100);

// The route's own response: one page of the document per read of the body.
const exportStarted = Date.now();
const response = exportResponse(await engine.exportAccount(account.id), account.id);
const reader = response.body!.getReader();
let bytes = 0;
let tail = '';
for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
  bytes += chunk.value.byteLength;
  tail = Buffer.from(chunk.value.subarray(Math.max(0, chunk.value.byteLength - 16))).toString();
}
const exportedIn = (Date.now() - exportStarted) / 1000;
clearInterval(sampler);
const after = process.memoryUsage();
peakHeap = Math.max(peakHeap, after.heapUsed);
peakRss = Math.max(peakRss, after.rss);

console.log(
  JSON.stringify(
    {
      store: KIND,
      licenses: LICENSES,
      customers: KIND === 'mysql' ? 1 : LICENSES / PER_CUSTOMER,
      activations: KIND === 'mysql' ? 0 : LICENSES / ACTIVATED_EVERY,
      seededSeconds: seededIn,
      documentMiB: MB(bytes),
      documentEnds: JSON.stringify(tail.slice(-4)),
      exportSeconds: exportedIn,
      heapBeforeMiB: MB(before.heapUsed),
      heapPeakDuringExportMiB: MB(peakHeap),
      heapGrowthMiB: MB(peakHeap - before.heapUsed),
      liveHeapPeakAfterGcMiB: MB(peakLive),
      liveHeapGrowthMiB: MB(peakLive - before.heapUsed),
      rssBeforeMiB: MB(before.rss),
      rssPeakDuringExportMiB: MB(peakRss),
      rssGrowthMiB: MB(peakRss - before.rss),
      node: process.version,
    },
    null,
    2,
  ),
);
await store.close();
if (KIND === 'mysql') {
  const admin = await createConnection({ uri: SERVER });
  await admin.query('DROP DATABASE IF EXISTS `svc_bench_export`');
  await admin.end();
}
