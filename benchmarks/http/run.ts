// HTTP benchmark: validate and activate against MariaDB (one and two server processes), the
// embedded store and a hello-JSON h3 route as references, and a list page over a million
// licenses at page 1 and page 10,000. Needs `pnpm build`; run with `pnpm bench:http`
// (BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_LIST_LICENSES change the defaults; BENCH_ONLY, a
// comma-separated list of words such as `validate,embedded`, runs only the scenarios and stores
// whose name contains one of them: `hello`, `embedded`, `mysql`, `validate`, `activate`, `list`,
// `webhook` (one-time purchases), `subscription` (subscription purchases)).
import { randomBytes } from 'node:crypto';
import { execSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { load } from './load.js';
import type { LoadResult, LoadSpec } from './load.js';
import { assertBuilt, runCli, startBaseline, startHello, startServer } from './processes.js';
import type { Running } from './processes.js';
import { bulkLoadLicenses, knownMachines, newMachines, seedLicenses } from './seed.js';
import { countLicenses, ingest, seedIntegration } from './webhooks.js';
import type { PurchaseKind } from './webhooks.js';
import { cpuSeconds, databasePidOf } from './cpu.js';
import { MYSQL, databaseUrl } from './database-url.js';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 32);
const LICENSES = 200;
const LIST_TOTAL = Number(process.env['BENCH_LIST_LICENSES'] ?? 1_000_000);
// On MySQL the servers count rate limits in the database (serve's default); the validate runs are
// repeated with the limits in Redis (`--redis-url`) to show what the shared limiter costs. Empty: skip.
const REDIS = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379/0';
const ONLY = (process.env['BENCH_ONLY'] ?? '').split(',').map((w) => w.trim().toLowerCase()).filter(Boolean);
const SCENARIOS = ['validate', 'activate', 'webhook', 'subscription', 'list', 'hello', 'baseline'];
const STORES = ['hello', 'baseline', 'embedded', 'mysql', 'galera'];
// The Galera cluster's client ports (started with scripts/galera-start.sh); empty: skip the cluster.
const GALERA = (process.env['BENCH_GALERA_URLS'] ?? 'mysql://root@127.0.0.1:3311,mysql://root@127.0.0.1:3312,mysql://root@127.0.0.1:3313').split(',').filter(Boolean);
/** Whether BENCH_ONLY selects `name` within its group: all when the filter names none of the group. */
const wanted = (name: string, group: string[]) => {
  const chosen = ONLY.filter((w) => group.includes(w));
  return chosen.length === 0 || chosen.includes(name);
};

/** Key e-mails of the webhook runs go here as files (no mail server in the benchmark). */
const OUTBOX = join(tmpdir(), `svc-bench-outbox-${process.pid}`);

const results: { scenario: string; store: string; processes: number; result: LoadResult; cpu: string }[] = [];

/** The database processes whose CPU a scenario reports: one MariaDB, or the cluster's nodes. */
let databasePids: number[] = [];
const dbCpu = () => (databasePids.length ? databasePids.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0) : null);
const log = (msg: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);

async function measure(scenario: string, store: string, servers: Running[], spec: LoadSpec, seconds = SECONDS): Promise<void> {
  const urls = servers.map((s) => s.url);
  await load(urls, spec, { connections: CONNECTIONS, seconds: 2 }); // warm-up: JIT, pools, caches
  const pids = servers.map((s) => s.pid);
  const before = { servers: pids.map(cpuSeconds), db: dbCpu(), self: process.cpuUsage() };
  const result = await load(urls, spec, { connections: CONNECTIONS, seconds });
  // Where the two cores went: server processes, the database, and the load generator (this process).
  const share = (used: number | null, was: number | null) => (used === null || was === null ? '?' : ((used - was) / seconds).toFixed(2));
  const self = process.cpuUsage(before.self);
  const cpu = [
    `servers ${pids.map((pid, i) => share(cpuSeconds(pid), before.servers[i] ?? null)).join('+')}`,
    store.startsWith('MariaDB') || store.startsWith('Galera') ? `db ${share(dbCpu(), before.db)}` : null,
    `load ${((self.user + self.system) / 1e6 / seconds).toFixed(2)}`,
  ]
    .filter(Boolean)
    .join(', ');
  results.push({ scenario, store, processes: servers.length, result, cpu });
  log(`${scenario} ${store} x${servers.length}: ${result.requestsPerSecond} req/s, p99 ${result.p99} ms, failures ${result.failures}, cores: ${cpu}`);
}

/** Webhook ingest: new purchases (two events each), then re-deliveries of the same events. */
async function measureIngest(store: string, servers: Running[], apiKey: string, kind: PurchaseKind = 'one-time'): Promise<void> {
  const setup = await seedIntegration(servers[0]!.url, apiKey);
  const urls = servers.map((s) => s.url);
  const warm = await ingest(urls, setup, { connections: CONNECTIONS, seconds: 2, kind }); // warm-up
  const pids = servers.map((s) => s.pid);
  const before = { servers: pids.map(cpuSeconds), db: dbCpu(), self: process.cpuUsage(), at: performance.now() };
  const { fresh, duplicates } = await ingest(urls, setup, { connections: CONNECTIONS, seconds: SECONDS, kind });
  const seconds = (performance.now() - before.at) / 1000;
  const share = (used: number | null, was: number | null) => (used === null || was === null ? '?' : ((used - was) / seconds).toFixed(2));
  const self = process.cpuUsage(before.self);
  const cpu = [
    `servers ${pids.map((pid, i) => share(cpuSeconds(pid), before.servers[i] ?? null)).join('+')}`,
    store.startsWith('MariaDB') || store.startsWith('Galera') ? `db ${share(dbCpu(), before.db)}` : null,
    `load ${((self.user + self.system) / 1e6 / seconds).toFixed(2)}`,
  ]
    .filter(Boolean)
    .join(', ');
  // Nothing lost: every purchase acknowledged with 200 has its license (counted as failures otherwise).
  const lost = warm.fresh.purchases + fresh.purchases - (await countLicenses(urls[0]!, apiKey, setup.productId));
  if (lost !== 0) {
    fresh.failures += Math.abs(lost);
    fresh.failureKinds['licenses missing (or extra)'] = lost;
  }
  const what = kind === 'subscription' ? 'new subscription' : 'new purchase';
  for (const [scenario, r] of [[`webhook ingest (${what}, events/s)`, fresh], [`webhook re-delivery (${kind === 'subscription' ? 'subscription, ' : ''}duplicate, events/s)`, duplicates]] as const) {
    const result = { requestsPerSecond: r.eventsPerSecond, p50: r.p50, p99: r.p99, failures: r.failures, total: r.total };
    results.push({ scenario, store, processes: servers.length, result, cpu });
    log(`${scenario} ${store} x${servers.length}: ${r.eventsPerSecond} events/s, p99 ${r.p99} ms, failures ${JSON.stringify(r.failureKinds)}, cores: ${cpu}`);
  }
}

/** Both kinds of purchase the filter selects, one after the other. */
async function measureIngests(store: string, servers: Running[], apiKey: string): Promise<void> {
  if (wanted('webhook', SCENARIOS)) await measureIngest(store, servers, apiKey, 'one-time');
  if (wanted('subscription', SCENARIOS)) await measureIngest(store, servers, apiKey, 'subscription');
}
const ingestWanted = () => wanted('webhook', SCENARIOS) || wanted('subscription', SCENARIOS);

const validate = (seeded: Awaited<ReturnType<typeof seedLicenses>>): LoadSpec => ({ method: 'POST', path: '/v1/licenses/validate', body: knownMachines(seeded) });
const activate = (seeded: Awaited<ReturnType<typeof seedLicenses>>): LoadSpec => ({ method: 'POST', path: '/v1/licenses/activate', body: newMachines(seeded) });

async function withAccount(storeArgs: string[], env: Record<string, string>): Promise<string> {
  const out = await runCli(['account', 'create', '--name', 'Bench', '--owner-email', 'bench@bench.test', '--service-plan', 'unlimited', ...storeArgs], env);
  return (JSON.parse(out) as { apiKey: string }).apiKey;
}

async function hello(): Promise<void> {
  const server = await startHello();
  try {
    await measure('hello JSON (h3)', '-', [server], { method: 'GET', path: '/hello' });
  } finally {
    await server.stop();
  }
}

/** Parse + sign reference: a body like validate's, parsed, a certificate-sized payload signed in the pool. */
async function baseline(): Promise<void> {
  const server = await startBaseline();
  try {
    const bodies = Array.from({ length: 200 }, () => JSON.stringify({ product: 'prd_baseline', key: 'BN-AAAAA-BBBBB-CCCCC-DDDDD', fingerprint: randomBytes(32).toString('hex') }));
    let i = 0;
    await measure('parse + sign baseline (h3)', '-', [server], { method: 'POST', path: '/sign', body: () => bodies[i++ % bodies.length]! });
  } finally {
    await server.stop();
  }
}

async function embedded(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-'));
  const args = ['--data', join(dir, 'data')];
  try {
    const apiKey = await withAccount(args, {});
    const server = await startServer([...args, '--outbox', join(dir, 'outbox')], {});
    try {
      if (wanted('validate', SCENARIOS) || wanted('activate', SCENARIOS)) {
        const seeded = await seedLicenses(server.url, apiKey, LICENSES);
        if (wanted('validate', SCENARIOS)) await measure('validate', 'embedded', [server], validate(seeded));
        if (wanted('activate', SCENARIOS)) await measure('activate (new machine)', 'embedded', [server], activate(seeded));
      }
      if (ingestWanted()) await measureIngests('embedded', [server], apiKey);
    } finally {
      await server.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function mysql(): Promise<void> {
  const name = `bench_${randomBytes(6).toString('hex')}`;
  // BENCH_DB_OPTIONS: store options for the servers' database URL, e.g. `poolSize=20`.
  const url = databaseUrl(MYSQL, name, process.env['BENCH_DB_OPTIONS']);
  const env = { SVC_MASTER_KEY: randomBytes(32).toString('base64') };
  const admin = await createConnection({ uri: MYSQL });
  databasePids = [await databasePidOf(MYSQL)].filter((p): p is number => p !== null);
  try {
    await runCli(['migrate', '--database', url], env);
    const apiKey = await withAccount(['--database', url], env);
    const one = await startServer(['--database', url, '--outbox', OUTBOX], env);
    let two: Running | null = null;
    try {
      if (ingestWanted() && REDIS !== '') {
        // Limits in Redis, as a deployment with several instances runs.
        const redisArgs = ['--database', url, '--redis-url', `${REDIS}?prefix=${name}`, '--outbox', OUTBOX];
        const viaRedis = [await startServer(redisArgs, env)];
        try {
          await measureIngests('MariaDB, limits in Redis', viaRedis, apiKey);
          viaRedis.push(await startServer(redisArgs, env));
          await measureIngests('MariaDB, limits in Redis', viaRedis, apiKey);
        } finally {
          for (const server of viaRedis) await server.stop();
        }
      }
      if (!wanted('validate', SCENARIOS) && !wanted('activate', SCENARIOS) && !wanted('list', SCENARIOS)) return;
      const seeded = await seedLicenses(one.url, apiKey, LICENSES);
      if (wanted('validate', SCENARIOS)) await measure('validate', 'MariaDB', [one], validate(seeded));
      if (wanted('validate', SCENARIOS) || wanted('activate', SCENARIOS)) two = await startServer(['--database', url], env);
      if (wanted('validate', SCENARIOS)) await measure('validate', 'MariaDB', [one, two!], validate(seeded));
      if (wanted('validate', SCENARIOS) && REDIS !== '') {
        const redisArgs = ['--database', url, '--redis-url', `${REDIS}?prefix=${name}`];
        const viaRedis = [await startServer(redisArgs, env)];
        try {
          await measure('validate', 'MariaDB, limits in Redis', viaRedis, validate(seeded));
          viaRedis.push(await startServer(redisArgs, env));
          await measure('validate', 'MariaDB, limits in Redis', viaRedis, validate(seeded));
        } finally {
          for (const server of viaRedis) await server.stop();
        }
      }
      if (wanted('activate', SCENARIOS)) await measure('activate (new machine)', 'MariaDB', [one], activate(seeded));
      if (wanted('activate', SCENARIOS)) await measure('activate (new machine)', 'MariaDB', [one, two!], activate(seeded));
      await two?.stop();
      two = null;
      if (!wanted('list', SCENARIOS)) return;

      log(`bulk-loading ${LIST_TOTAL} licenses`);
      let last = 0;
      await bulkLoadLicenses(databaseUrl(MYSQL, name), LIST_TOTAL, (done) => {
        if (done - last >= 100_000) log(`  ${(last = done)}`);
      });
      const page = Math.min(10_000, Math.floor(LIST_TOTAL / 50));
      const [rows] = await admin.query(`SELECT id FROM \`${name}\`.licenses ORDER BY id DESC LIMIT 1 OFFSET ?`, [(page - 1) * 50 - 1]);
      const cursor = Buffer.from((rows as { id: string }[])[0]!.id, 'utf8').toString('base64url');
      const auth = { authorization: `Bearer ${apiKey}` };
      await measure(`list licenses, page 1 of ${LIST_TOTAL.toLocaleString('en')}`, 'MariaDB', [one], { method: 'GET', path: '/v1/licenses', headers: auth }, 5);
      await measure(`list licenses, page ${page.toLocaleString('en')}`, 'MariaDB', [one], { method: 'GET', path: `/v1/licenses?cursor=${cursor}`, headers: auth }, 5);
    } finally {
      await two?.stop();
      await one.stop();
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await admin.end();
  }
}

/**
 * The 3-node Galera cluster: validate, activate and webhook ingest with 1 server process (node 1)
 * and 3 (one per node, connections spread over them), rate limits in Redis (required on Galera),
 * and validate once more without `wsrep_sync_wait` to show what read-your-writes costs.
 */
async function galera(): Promise<void> {
  const pids = await Promise.all(GALERA.map(databasePidOf));
  if (pids.some((p) => p === null)) {
    log(`skipping Galera: no cluster at ${GALERA.join(', ')} (start one with scripts/galera-start.sh)`);
    return;
  }
  databasePids = pids as number[];
  const name = `bench_${randomBytes(6).toString('hex')}`;
  const urlOf = (node: string, options = '') => `${node}/${name}${options}`;
  const env = { SVC_MASTER_KEY: randomBytes(32).toString('base64') };
  const args = (node: string, options = '') => ['--database', urlOf(node, options), '--redis-url', `${REDIS}?prefix=${name}`, '--outbox', OUTBOX];
  const admin = await createConnection({ uri: GALERA[0]! });
  try {
    await runCli(['migrate', '--database', urlOf(GALERA[0]!)], env);
    const apiKey = await withAccount(['--database', urlOf(GALERA[0]!)], env);
    const one = [await startServer(args(GALERA[0]!), env)];
    const three: Running[] = [];
    try {
      const seeded = await seedLicenses(one[0]!.url, apiKey, LICENSES);
      if (wanted('validate', SCENARIOS)) await measure('validate', 'Galera 3 nodes', one, validate(seeded));
      if (wanted('activate', SCENARIOS)) await measure('activate (new machine)', 'Galera 3 nodes', one, activate(seeded));
      if (ingestWanted()) await measureIngests('Galera 3 nodes', one, apiKey);
      three.push(one[0]!, await startServer(args(GALERA[1]!), env), await startServer(args(GALERA[2]!), env));
      if (wanted('validate', SCENARIOS)) await measure('validate', 'Galera 3 nodes', three, validate(seeded));
      if (wanted('activate', SCENARIOS)) await measure('activate (new machine)', 'Galera 3 nodes', three, activate(seeded));
      if (ingestWanted()) await measureIngests('Galera 3 nodes', three, apiKey);
      if (wanted('validate', SCENARIOS)) {
        const noSync = [await startServer(args(GALERA[0]!, '?syncWait=0'), env)];
        try {
          await measure('validate', 'Galera 3 nodes, wsrep_sync_wait=0', noSync, validate(seeded));
        } finally {
          await noSync[0]!.stop();
        }
      }
    } finally {
      for (const server of three.length ? three : one) await server.stop();
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await admin.end();
  }
}

function table(): string {
  const lines = [
    '| Scenario | Store | Server processes | Requests/s | p50 (ms) | p99 (ms) | Non-2xx/errors | Cores used |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const r of results) {
    lines.push(`| ${r.scenario} | ${r.store} | ${r.processes} | ${r.result.requestsPerSecond.toLocaleString('en')} | ${r.result.p50} | ${r.result.p99} | ${r.result.failures} | ${r.cpu} |`);
  }
  return lines.join('\n');
}

assertBuilt();
log(`${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), Node ${process.version}, ${CONNECTIONS} connections, ${SECONDS} s per run, load average ${loadavg()[0]!.toFixed(2)}`);
if (wanted('hello', STORES) && wanted('hello', SCENARIOS)) await hello();
if (wanted('baseline', STORES) && (wanted('baseline', SCENARIOS) || wanted('validate', SCENARIOS))) await baseline();
if (wanted('embedded', STORES) && (wanted('validate', SCENARIOS) || wanted('activate', SCENARIOS) || ingestWanted())) await embedded();
if (wanted('mysql', STORES)) await mysql();
if (wanted('galera', STORES) && REDIS !== '') await galera();
await rm(OUTBOX, { recursive: true, force: true });
const find = (scenario: string, store: string, processes = 1) => results.find((r) => r.scenario === scenario && r.store === store && r.processes === processes)?.result;
const ratios: string[] = [];
const base = find('parse + sign baseline (h3)', '-');
const embeddedValidate = find('validate', 'embedded');
if (base && embeddedValidate) ratios.push(`validate (embedded) / parse + sign baseline: ${(embeddedValidate.requestsPerSecond / base.requestsPerSecond).toFixed(3)}`);
const singleValidate = find('validate', 'MariaDB, limits in Redis');
for (const processes of [1, 3]) {
  const clusterValidate = find('validate', 'Galera 3 nodes', processes);
  if (singleValidate && clusterValidate) ratios.push(`validate (Galera, ${processes} process${processes > 1 ? 'es' : ''}) / validate (one MariaDB, limits in Redis, 1 process): ${(clusterValidate.requestsPerSecond / singleValidate.requestsPerSecond).toFixed(3)}`);
}
const report = `${table()}\n\n${ratios.join('\n')}\n\nLoad average at the end: ${loadavg().map((l) => l.toFixed(2)).join(', ')}.`;
process.stdout.write(`${report}\n`);
