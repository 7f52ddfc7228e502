// What one notification delivery row costs a unit of work on MariaDB, apart from the rest of the
// unit (issue 28, ninth round): units of one audit event row ("without") against units of the
// same audit event row plus one delivery row ("with"), both held for the COMMIT as the engine
// holds them, 16 units at a time; CPU of this process and of MariaDB per unit. Rounds alternate
// the order (without-with, with-without, ...); the figure is the CPU the delivery row adds (with
// minus without), per round, its median with a 95% bootstrap interval over the rounds. The body
// is a license.created body as the engine writes it (about 1 KB of JSON text). Run it from each
// build's benchmarks/ to compare how the builds store a delivery.
//   npx tsx notify/delivery-rows.ts [rounds=16] [units per phase=1000]
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { createLicenseEngine, createSecretBox } from '@svc-licensing/license-engine';
import type { AuditEventRecord, NotificationDeliveryRecord } from '@svc-licensing/license-engine';
import { createMySqlStore } from '../../packages/server/src/stores/mysql/index.js';
import { cpuSeconds, databasePidOf } from '../http/cpu.js';
import { MYSQL, databaseUrl, dropDatabases } from '../http/database-url.js';

const ROUNDS = Number(process.argv[2] ?? 16);
const UNITS = Number(process.argv[3] ?? 1000);
const database = `bench_delivery_rows_${randomBytes(5).toString('hex')}`;
const store = createMySqlStore(databaseUrl(MYSQL, database));
await store.ready();
const dbPids = [await databasePidOf(MYSQL)].filter((p): p is number => p !== null);
const cpu = () => {
  const self = process.cpuUsage();
  return (self.user + self.system) / 1e6 + dbPids.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0);
};

const AT = '2026-11-28T07:00:00.000Z';
const view = {
  id: 'lic_01jfz8c3v2k7m9q4r6t8w0y2a4', object: 'license', key: 'BE-7Q2M-4K9D-X8ZP-3R6T', status: 'active', customer: 'cus_01jfz8c3v2k7m9q4r6t8w0y2a5',
  customerEmail: 'buyer-123@bench.test', customerName: 'Zoë "Buyer" Example', product: 'prd_01jfz8c3v2k7m9q4r6t8w0y2a6', plan: 'pln_01jfz8c3v2k7m9q4r6t8w0y2a7',
  planCode: 'lifetime', kind: 'perpetual', seats: 3, activations: 0, expiresAt: null, graceDays: 0, metadata: { order: 'ord_123', note: 'a "quoted" note' },
  integration: null, subscription: null, createdAt: AT, updatedAt: AT,
};
const eventData = { source: 'vendor', plan: 'pln_01jfz8c3v2k7m9q4r6t8w0y2a7', email: 'buyer-123@bench.test' };
const body = JSON.stringify({ type: 'license.created', timestamp: AT, data: { ...view, event: { id: 'evt_01jfz8c3v2k7m9q4r6t8w0y2a8', type: 'license.created', data: eventData, createdAt: AT } } });

try {
  const engine = createLicenseEngine({ store, secrets: createSecretBox(new Uint8Array(randomBytes(32))), onNotificationsQueued: () => {} });
  const { account } = await engine.createAccount({ name: 'Bench', ownerEmail: 'bench@bench.test', servicePlan: 'unlimited' });
  let n = 0;
  const id = (prefix: string) => `${prefix}_${String(n++).padStart(26, '0')}`;
  const unit = (withDelivery: boolean) =>
    store.transaction(async (tx) => {
      const event: AuditEventRecord = { id: id('evt'), accountId: account.id, type: 'license.created', licenseId: null, data: eventData, createdAt: AT } as AuditEventRecord;
      await tx.insert('auditEvents', event, { defer: true });
      if (!withDelivery) return;
      const delivery: NotificationDeliveryRecord = {
        id: id('msg'), accountId: account.id, endpointId: 'wep_01jfz8c3v2k7m9q4r6t8w0y2a9', eventId: event.id, type: 'license.created', body, createdAt: AT,
        state: 'pending', dueAt: 1_800_000_000_000, nextAttemptAt: 1_800_000_000_000, roundAttempts: 0, firstAttemptAt: null, attempts: [], claim: null, updatedAt: AT,
      };
      await tx.insert('notificationDeliveries', delivery, { defer: true, owned: true });
    });
  const phase = async (withDelivery: boolean) => {
    const before = cpu();
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next++ < UNITS) await unit(withDelivery);
    }));
    return (1e6 * (cpu() - before)) / UNITS;
  };
  await phase(false);
  await phase(true);
  const rows: { without: number; with: number }[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const row = { without: 0, with: 0 };
    for (const w of round % 2 === 1 ? [false, true] : [true, false]) row[w ? 'with' : 'without'] = await phase(w);
    rows.push(row);
    process.stderr.write(`${JSON.stringify(row)}\n`);
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2;
  };
  const added = rows.map((r) => r.with - r.without);
  // Percentile bootstrap of the median added µs over whole rounds, seeded.
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const medians = Array.from({ length: 4000 }, () => median(added.map(() => added[Math.floor(rand() * added.length)]!))).sort((a, b) => a - b);
  const mean = (k: 'without' | 'with') => rows.reduce((s, r) => s + r[k], 0) / rows.length;
  console.log(
    `delivery rows: ${ROUNDS} rounds of ${UNITS} units per phase; ${cpus()[0]?.model}, Node ${process.version}; load at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n` +
      `CPU µs per unit (process + MariaDB): without ${mean('without').toFixed(0)}, with one delivery row ${mean('with').toFixed(0)}; ` +
      `added by the row, median of the rounds ${median(added).toFixed(0)} µs [95% CI ${medians[100]!.toFixed(0)} to ${medians[3899]!.toFixed(0)}]`,
  );
} finally {
  await store.close();
  await dropDatabases(MYSQL, [database]);
}
