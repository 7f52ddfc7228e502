// What queueing a notification costs the unit that causes it (issue 28: "webhook ingest and
// license creation with one subscribed endpoint cost at most 10% more than without"), without the
// sending: the engine over one store in this process, no HTTP server and no dispatcher running, so
// the figure is the transactional outbox's write (the resource's view, the body's JSON, the
// delivery record and its share of the commit) and nothing else. The sending is measured apart
// (dispatch.ts: CPU per delivery; overhead.ts: a `serve` process with its dispatcher).
//   license creation: `engine.createLicense`, 16 at a time;
//   webhook ingest:   signed provider_a purchases through the server's webhook receiver
//                     (`createWebhookReceiver`, as the route calls it: signature check, the
//                     engine's unit, the key e-mail written as a file), 16 purchases at a time,
//                     each its two events in order.
// Paired and interleaved so the shared machine's drift cancels: `rounds` rounds, each a phase
// without and a phase with the endpoint (enabled or disabled between phases), the order
// alternating (without-with, with-without, ...). CPU of this process (and of MariaDB) per
// operation; the per-round ratios and the pooled ratio are reported, the latter with a 95%
// bootstrap interval over the rounds (ci.ts).
//   npx tsx notify/enqueue.ts embedded|mysql [rounds=8] [operations per phase=400]
// BENCH_CHECKPOINT_BYTES sets the embedded store's checkpoint trigger (default 16 MiB; a huge value
// leaves the snapshots' share out, to see the unit's own cost). BENCH_PROFILE=without|with: a CPU profile of those phases only, written as
// notify-enqueue-<phase>.cpuprofile in the OS temp folder (the other phases run unprofiled); BENCH_PROFILE_INTERVAL=<µs> samples finer.
// BENCH_SCENARIOS=creation|ingest measures that scenario only. The GC columns: the collector's
// pauses on the main thread per phase (its concurrent threads show only in the CPU).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { createLicenseEngine, createSecretBox } from '@svc-licensing/license-engine';
import type { Store } from '@svc-licensing/license-engine';
import { signProviderA } from '@svc-licensing/provider-webhooks';
import { openEmbeddedStore } from '../../packages/server/src/stores/embedded/index.js';
import { createMySqlStore } from '../../packages/server/src/stores/mysql/index.js';
import { createWebhookReceiver } from '../../packages/server/src/webhooks/receiver.js';
import { createKeyEmailSender } from '../../packages/server/src/key-email.js';
import { createMailer } from '../../packages/server/src/mail/create-mailer.js';
import { cpuSeconds, databasePidOf } from '../http/cpu.js';
import { purchaseBodies } from '../http/webhooks.js';
import { changeInterval, formatInterval, medianChangeInterval } from './ci.js';
import { MYSQL, databaseUrl, dropDatabases } from '../http/database-url.js';

const which = process.argv[2] === 'mysql' ? 'mysql' : 'embedded';
const ROUNDS = Number(process.argv[3] ?? 8);
const OPS = Number(process.argv[4] ?? 400);
const SECRET = 'bench_webhook_secret';
const PROFILE = process.env['BENCH_PROFILE'];
const session = new Session();
session.connect();
if (PROFILE) await session.post('Profiler.enable');
// BENCH_PROFILE_INTERVAL: the profiler's sampling interval in µs (V8's default 1,000): finer for pieces of a few µs.
if (PROFILE && process.env['BENCH_PROFILE_INTERVAL']) await session.post('Profiler.setSamplingInterval', { interval: Number(process.env['BENCH_PROFILE_INTERVAL']) });
const profiles: unknown[] = [];
// The garbage collector's pauses (the main thread's; concurrent marking threads count only in the
// CPU), summed per phase: minor (scavenges) and major (mark-compact) separately.
const gc = { minor: 0, major: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = ((entry as PerformanceEntry & { detail?: unknown }).detail as { kind?: number } | undefined)?.kind;
    if (kind === perfConstants.NODE_PERFORMANCE_GC_MINOR) gc.minor += entry.duration;
    else gc.major += entry.duration;
  }
}).observe({ entryTypes: ['gc'] });

async function times(n: number, parallel: number, work: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < n) await work(next++);
  }));
}

const dir = await mkdtemp(join(tmpdir(), 'svc-bench-enqueue-'));
const database = `bench_notify_enqueue_${randomBytes(5).toString('hex')}`;
let store: Store;
if (which === 'mysql') {
  const mysql = createMySqlStore(databaseUrl(MYSQL, database));
  await mysql.ready();
  store = mysql;
} else store = await openEmbeddedStore(join(dir, 'store'), process.env['BENCH_CHECKPOINT_BYTES'] ? { checkpointBytes: Number(process.env['BENCH_CHECKPOINT_BYTES']) } : {});
const dbPids = which === 'mysql' ? [await databasePidOf(MYSQL)].filter((p): p is number => p !== null) : [];
const cpu = () => {
  const self = process.cpuUsage();
  return (self.user + self.system) / 1e6 + dbPids.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0);
};

try {
  const engine = createLicenseEngine({ store, secrets: createSecretBox(new Uint8Array(randomBytes(32))), onNotificationsQueued: () => {} });
  const { account } = await engine.createAccount({ name: 'Bench', ownerEmail: 'bench@bench.test', servicePlan: 'unlimited' });
  const endpoint = await engine.createWebhookEndpoint(account.id, { url: 'https://hooks.bench.test/svc' });
  const product = await engine.createProduct(account.id, { name: 'Bench Enqueue', keyPrefix: 'BE-' });
  const plan = await engine.createPlan(account.id, product.id, { code: 'lifetime', kind: 'perpetual' });
  await engine.createPlan(account.id, product.id, { code: 'monthly', kind: 'subscription' });
  const integration = await engine.createIntegration(account.id, {
    provider: 'provider_a', product: product.id, webhookSecret: SECRET,
    priceMap: { pri_01hv0w3gq5t6wkq9r2dq7y8m1b: 'lifetime', pri_01hv0vax6rv18t4tamj848ne4d: 'monthly' },
  });
  const keyEmails = createKeyEmailSender({ engine, mailer: createMailer(undefined, dir), sender: { fromAddress: 'licenses@bench.test' } });
  const receiver = createWebhookReceiver({ keyEmails });
  const run = randomBytes(4).toString('hex');
  let created = 0;
  let purchased = 0;
  const deliver = async (body: string) => {
    const answer = await receiver.receive(engine, {
      provider: 'provider_a', integrationId: integration.id, body: async () => new TextEncoder().encode(body),
      headers: new Headers({ 'content-type': 'application/json', 'provider-a-signature': signProviderA(body, SECRET) }),
    });
    if (!answer.ok || answer.reply.result !== 'processed') throw new Error(`ingest: ${JSON.stringify(answer)}`);
  };
  const scenarios = {
    'license creation': () => times(OPS, 16, () => engine.createLicense(account.id, { plan: plan.id, email: `buyer-${created++}@bench.test`, sendEmail: false })),
    // OPS events: OPS / 2 purchases of two events each
    'webhook ingest': () => times(OPS / 2, 16, async () => {
      const [customer, transaction] = purchaseBodies(run, purchased++);
      await deliver(customer);
      await deliver(transaction);
    }),
  } as const;
  type Scenario = keyof typeof scenarios;
  // BENCH_SCENARIOS=creation or ingest: only that scenario (a profile of one path).
  const only = process.env['BENCH_SCENARIOS'];
  const measured = (Object.keys(scenarios) as Scenario[]).filter((s) => !only || s.includes(only));
  type GcMs = { minor: number; major: number };
  const rows: { scenario: Scenario; round: number; without: number; with: number; gc: { without: GcMs; with: GcMs } }[] = [];
  // Warm-up of both paths and both phases (JIT).
  for (const enabled of [false, true]) {
    await engine.updateWebhookEndpoint(account.id, endpoint.id, { enabled });
    for (const work of Object.values(scenarios)) await work();
  }
  for (let round = 1; round <= ROUNDS; round++) {
    for (const scenario of measured) {
      const row = { scenario, round, without: 0, with: 0, gc: { without: { minor: 0, major: 0 }, with: { minor: 0, major: 0 } } };
      for (const phase of round % 2 === 1 ? (['without', 'with'] as const) : (['with', 'without'] as const)) {
        await engine.updateWebhookEndpoint(account.id, endpoint.id, { enabled: phase === 'with' });
        if (PROFILE === phase) await session.post('Profiler.start');
        const before = cpu();
        await new Promise((resolve) => setImmediate(resolve)); // the observer's entries of the previous phase
        gc.minor = gc.major = 0;
        await scenarios[scenario]();
        row[phase] = Math.round((1e6 * (cpu() - before)) / OPS);
        await new Promise((resolve) => setImmediate(resolve));
        row.gc[phase] = { minor: Math.round(gc.minor), major: Math.round(gc.major) };
        if (PROFILE === phase) profiles.push((await session.post('Profiler.stop')).profile);
      }
      rows.push(row);
      process.stderr.write(`${JSON.stringify(row)}\n`);
    }
  }
  if (PROFILE) {
    const file = join(tmpdir(), `notify-enqueue-${PROFILE}.cpuprofile`);
    await writeFile(file, JSON.stringify(profiles));
    console.log(`profiles of the ${PROFILE} phases: ${file}`);
  }
  const pct = (a: number, b: number) => `${((b / a - 1) * 100).toFixed(1)}%`;
  console.log(`\nStore ${which}; ${ROUNDS} rounds of ${OPS} operations per phase; ${cpus()[0]?.model}, ${cpus().length} cores, Node ${process.version}; load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
  console.log('| Scenario | Round (order) | CPU µs per operation without | with one endpoint | Change | GC pauses ms without (minor / major) | with |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.scenario} | ${r.round} (${r.round % 2 ? 'without first' : 'with first'}) | ${r.without} | ${r.with} | ${pct(r.without, r.with)} | ${r.gc.without.minor} / ${r.gc.without.major} | ${r.gc.with.minor} / ${r.gc.with.major} |`);
  for (const scenario of measured) {
    const mine = rows.filter((r) => r.scenario === scenario);
    const sum = (k: 'without' | 'with') => mine.reduce((s, r) => s + r[k], 0) / mine.length;
    const gcMs = (k: 'without' | 'with') => mine.reduce((s, r) => s + r.gc[k].minor + r.gc[k].major, 0);
    const added = mine.map((r) => r.with - r.without).sort((a, b) => a - b);
    const medianAdded = (added[(added.length - 1) >> 1]! + added[added.length >> 1]!) / 2;
    const ci = formatInterval(changeInterval(mine));
    console.log(`| ${scenario} | all (mean) | ${sum('without').toFixed(0)} | ${sum('with').toFixed(0)} | **${pct(sum('without'), sum('with'))}** (95% CI ${ci}; median of rounds ${formatInterval(medianChangeInterval(mine))}, median added ${medianAdded} µs) | GC ${(gcMs('without') * 1000 / (OPS * mine.length)).toFixed(0)} µs per op | ${(gcMs('with') * 1000 / (OPS * mine.length)).toFixed(0)} µs per op |`);
  }
} finally {
  await store.close();
  await rm(dir, { recursive: true, force: true });
  if (which === 'mysql') {
    await dropDatabases(MYSQL, [database]);
  }
}
