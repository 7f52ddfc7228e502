// Paired A/B of two builds of the server under the HTTP benchmark's load: this checkout's (B, or
// BENCH_AB_HEAD: another checkout's root, built) and another checkout's (A, BENCH_AB_BASE: its root,
// built), each one server process on the same seeded data (one MariaDB, limits in Redis; or one
// embedded data folder each; BENCH_AB_SEPARATE=1: a MariaDB database each, for two builds whose
// schemas or sealed secrets differ), each side's data made by its own CLI and API, measured in turn
// A B A B ... for BENCH_AB_ROUNDS rounds (default 5) of BENCH_SECONDS (default 5) after a 1 s
// warm-up each, so a machine whose speed drifts moves both alike. Prints each round and the median
// of the per-round ratios B/A of throughput and of CPU per request (server process, and MariaDB).
// From benchmarks/, after building both checkouts:
//
//   BENCH_AB_BASE=/path/to/base npx tsx http/ab.ts <validate|activate|webhook|subscription|revoke|revoke-one-product> <embedded|mysql>
//
// `revoke`: POST /v1/licenses/{id}/revoke with the API key, each request a different license made
// beforehand (BENCH_REVOKE_PRODUCTS products, default 32, round robin); `revoke-one-product`: the
// same with every license of one product, so each revoke waits for the product's row lock. These
// two run a fixed number of requests per round (BENCH_REVOKE_AMOUNT, default 800, after a warm-up
// of BENCH_REVOKE_WARM, default 64) instead of BENCH_SECONDS, since a license revokes once. Builds
// whose MySQL schemas differ need BENCH_AB_SEPARATE=1.
//
// A setting instead of a build: BENCH_AB_BASE=.. (this checkout on both sides) with
// BENCH_AB_OPTIONS_A / BENCH_AB_OPTIONS_B, store options for each side's database URL (e.g.
// `poolSize=32`), and BENCH_AB_ENV_A / BENCH_AB_ENV_B, environment variables for each side's
// server (e.g. `UV_THREADPOOL_SIZE=2`, comma-separated).
//
// The key e-mails' outboxes (`--outbox`): under BENCH_OUTBOX_DIR when set (both sides, e.g.
// /dev/shm for tmpfs; http/outbox.ts), else in this run's folder under os.tmpdir();
// BENCH_AB_OUTBOX_A / BENCH_AB_OUTBOX_B put one side's elsewhere (an A/B of the placement).
//
// MariaDB over its Unix socket instead of TCP: BENCH_MYSQL_URL='mysql://root@localhost?socketPath=/run/mysqld/mysqld.sock'
// (both sides, http/database-url.ts), or BENCH_AB_OPTIONS_B=socketPath=%2Frun%2Fmysqld%2Fmysqld.sock (B only).
//
// Two stores instead of two builds: `<embedded:mysql>` as the store runs A on the embedded store and
// B on MariaDB (limits in Redis), with BENCH_AB_BASE=.. (this build on both sides), so "MariaDB
// against the embedded store in the same run" is B/A of alternating rounds, with its interval:
//
//   BENCH_AB_BASE=.. BENCH_AB_ALTERNATE=1 BENCH_AB_ROUNDS=8 npx tsx http/ab.ts webhook embedded:mysql
//
// `webhook` and `subscription` are timed and charged over the new purchases only (events per second
// of the ingest's first part, as run.ts reports them), not over the re-deliveries that follow them.
//
// BENCH_AB_ALTERNATE=1: even rounds run B before A (A B, B A, A B, ...), so a side that runs first
// (or second) in its round has no edge on every pair. Each ratio is printed with a 95 % confidence
// interval of its median from the order statistics of the rounds' ratios (distribution-free, as the
// sign test: the pairs are taken as independent; 6 rounds at least).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSeconds, databasePidOf } from './cpu.js';
import { MYSQL, databaseUrl, dropDatabases } from './database-url.js';
import { load } from './load.js';
import { outboxFolder, outboxRoot } from './outbox.js';
import { median, medianInterval } from './median.js';
import { cliPath, runCli, startServer } from './processes.js';
import type { Running } from './processes.js';
import { revokeAll } from './revoke.js';
import { knownMachines, newMachines, seedLicenses, seedRevocable } from './seed.js';
import { ingest, seedIntegration } from './webhooks.js';

const [scenario, storeArg] = process.argv.slice(2);
const base = process.env['BENCH_AB_BASE'];
const SCENARIOS = ['validate', 'activate', 'webhook', 'subscription', 'revoke', 'revoke-one-product'];
const STORES = ['embedded', 'mysql', 'embedded:mysql'];
if (!base || !SCENARIOS.includes(scenario ?? '') || !STORES.includes(storeArg ?? '')) {
  throw new Error(`usage: BENCH_AB_BASE=<checkout> [BENCH_AB_HEAD=<checkout>] ab.ts <${SCENARIOS.join('|')}> <${STORES.join('|')}>`);
}
type Store = 'embedded' | 'mysql';
/** Each side's store: the same on both, or embedded (A) against MariaDB (B). */
const stores: { A: Store; B: Store } = storeArg === 'embedded:mysql' ? { A: 'embedded', B: 'mysql' } : { A: storeArg as Store, B: storeArg as Store };
/** The store(s) as named in the summary. */
const store = storeArg as string;
const usesMysql = stores.A === 'mysql' || stores.B === 'mysql';
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 5);
const ROUNDS = Number(process.env['BENCH_AB_ROUNDS'] ?? 5);
const ALTERNATE = process.env['BENCH_AB_ALTERNATE'] === '1';
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 32);
const REDIS = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379/0';
const REVOKE = { amount: Number(process.env['BENCH_REVOKE_AMOUNT'] ?? 800), warm: Number(process.env['BENCH_REVOKE_WARM'] ?? 64), products: Number(process.env['BENCH_REVOKE_PRODUCTS'] ?? 32) };
const log = (msg: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);
const head = process.env['BENCH_AB_HEAD'];
const clis = { A: join(base, 'packages/server/bin/svc-licensing.cjs'), B: head ? join(head, 'packages/server/bin/svc-licensing.cjs') : cliPath };
const separate = process.env['BENCH_AB_SEPARATE'] === '1';
const storeOptions = { A: process.env['BENCH_AB_OPTIONS_A'] ?? '', B: process.env['BENCH_AB_OPTIONS_B'] ?? '' };
/** `NAME=value,NAME=value` as an environment object. */
const envOf = (text: string | undefined): Record<string, string> =>
  Object.fromEntries((text ?? '').split(',').filter(Boolean).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
const sideEnv = { A: envOf(process.env['BENCH_AB_ENV_A']), B: envOf(process.env['BENCH_AB_ENV_B']) };
const outboxRoots = { A: process.env['BENCH_AB_OUTBOX_A'] || outboxRoot, B: process.env['BENCH_AB_OUTBOX_B'] || outboxRoot };
const outboxes: string[] = [];

const work = await mkdtemp(join(tmpdir(), 'svc-ab-'));
const name = `bench_${randomBytes(6).toString('hex')}`;
const env = { SVC_MASTER_KEY: randomBytes(32).toString('base64') };
const dbPid = usesMysql ? await databasePidOf(MYSQL) : null;
const servers: Running[] = [];
/** One warm-up or measured stretch of load: requests done, latency percentiles (ms) when the driver has them. */
type Measured = { total: number; p50: number | null; p99: number | null; failures?: number };
/** `measured`: called when the measured part ends before the run does (the ingest's re-deliveries follow it). */
type Run = (url: string, phase: 'warm' | 'measure', measured?: () => void) => Promise<Measured>;
const secondsOf = (phase: 'warm' | 'measure') => (phase === 'warm' ? 1 : SECONDS);

/** One side's server with its data seeded (embedded: a folder of its own), and the load it runs. */
async function side(which: 'A' | 'B', shared: { apiKey: string; run?: Run } | null) {
  const db = separate ? `${name}_${which}` : name;
  const storeArgs =
    stores[which] === 'embedded'
      ? ['--data', join(work, `data-${which}`)]
      : ['--database', databaseUrl(MYSQL, db, storeOptions[which]), '--redis-url', `${REDIS}?prefix=${db}`];
  let apiKey = shared?.apiKey;
  if (!apiKey) {
    if (stores[which] === 'mysql') await runCli(['migrate', '--database', storeArgs[1]!], env, clis[which]);
    const created = await runCli(['account', 'create', '--name', 'AB', '--owner-email', 'ab@ab.test', '--service-plan', 'unlimited', ...storeArgs.slice(0, 2)], env, clis[which]);
    apiKey = (JSON.parse(created) as { apiKey: string }).apiKey;
  }
  const outbox = await outboxFolder(which, work, outboxRoots[which]);
  outboxes.push(outbox);
  const server = await startServer([...storeArgs, '--outbox', outbox], { ...env, ...sideEnv[which] }, clis[which]);
  servers.push(server);
  let run = shared?.run;
  if (!run) {
    if (scenario === 'validate' || scenario === 'activate') {
      const seeded = await seedLicenses(server.url, apiKey, 200);
      const spec = { method: 'POST' as const, path: `/v1/licenses/${scenario}`, body: scenario === 'validate' ? knownMachines(seeded) : newMachines(seeded) };
      run = async (url, phase) => load([url], spec, { connections: CONNECTIONS, seconds: secondsOf(phase) });
    } else if (scenario === 'revoke' || scenario === 'revoke-one-product') {
      // On a shared MariaDB database B's requests continue through the same list: seed for both sides.
      const count = ROUNDS * (REVOKE.warm + REVOKE.amount) * (storeArg === 'mysql' && !separate ? 2 : 1);
      const started = performance.now();
      const ids = await seedRevocable(server.url, apiKey, count, scenario === 'revoke' ? REVOKE.products : 1);
      log(`${which}: ${count} licenses in ${scenario === 'revoke' ? REVOKE.products : 1} product(s) made in ${((performance.now() - started) / 1000).toFixed(0)} s`);
      let next = 0;
      const key = apiKey;
      run = async (url, phase) => {
        const amount = phase === 'warm' ? REVOKE.warm : REVOKE.amount;
        const result = await revokeAll(url, key, ids.slice(next, (next += amount)), CONNECTIONS);
        if (result.total < amount) throw new Error(`${which}: ran out of licenses`);
        // A failed revoke (500 after the store's retries) is counted and printed, its latency kept: the summary says the run is not clean.
        if (result.failures) log(`${which} ${phase}: ${result.failures} revokes failed ${JSON.stringify(result.failureKinds)}`);
        return result;
      };
    } else {
      const setup = await seedIntegration(server.url, apiKey);
      const kind = scenario === 'subscription' ? 'subscription' : 'one-time';
      run = async (url, phase, measured) => {
        const { fresh } = await ingest([url], setup, { connections: CONNECTIONS, seconds: secondsOf(phase), kind, ...(measured ? { onFreshDone: measured } : {}) });
        if (fresh.failures) log(`failures: ${JSON.stringify(fresh.failureKinds)}`);
        return { total: fresh.total, p50: null, p99: null };
      };
    }
  }
  return { server, apiKey, run };
}

try {
  const a = await side('A', null);
  // On MariaDB both servers use the same database, account and seeded data; embedded stores are seeded each.
  const b = await side('B', storeArg === 'mysql' && !separate ? { apiKey: a.apiKey, run: a.run } : null);
  const rows: { round: number; which: string; perSecond: number; serverUs: number; dbUs: number | null; p50: number | null; p99: number | null; failures: number }[] = [];
  log(`${scenario} on ${store}: A ${clis.A} ${storeOptions.A} ${JSON.stringify(sideEnv.A)}, B ${clis.B} ${storeOptions.B} ${JSON.stringify(sideEnv.B)}; outboxes ${outboxes.join(', ')}; load average ${loadavg()[0]!.toFixed(2)}`);
  for (let round = 1; round <= ROUNDS; round++) {
    const order = ALTERNATE && round % 2 === 0 ? ([['B', b], ['A', a]] as const) : ([['A', a], ['B', b]] as const);
    for (const [which, s] of order) {
      await s.run(s.server.url, 'warm');
      const snapshot = () => ({ server: cpuSeconds(s.server.pid)!, db: dbPid === null ? null : cpuSeconds(dbPid), at: performance.now() });
      const before = snapshot();
      // New purchases only: the ingest's re-deliveries after them are neither timed nor charged.
      let end: ReturnType<typeof snapshot> | null = null;
      const { total: done, p50, p99, failures = 0 } = await s.run(s.server.url, 'measure', () => (end = snapshot()));
      const after: ReturnType<typeof snapshot> = end ?? snapshot();
      const seconds = (after.at - before.at) / 1000;
      const serverUs = ((after.server - before.server) * 1e6) / done;
      const db = after.db;
      // An embedded side's MariaDB CPU is someone else's: not counted.
      const dbUs = db === null || before.db === null || stores[which] !== 'mysql' ? null : ((db - before.db) * 1e6) / done;
      rows.push({ round, which, perSecond: Math.round(done / seconds), serverUs: Math.round(serverUs), dbUs: dbUs === null ? null : Math.round(dbUs), p50, p99, failures });
      log(`round ${round} ${which}: ${Math.round(done / seconds)}/s, p50 ${p50 ?? '-'} ms, p99 ${p99 ?? '-'} ms, server ${Math.round(serverUs)} µs, db ${dbUs === null ? '-' : Math.round(dbUs)} µs per request, load ${loadavg()[0]!.toFixed(2)}`);
    }
  }
  const pairs = (f: (r: (typeof rows)[number]) => number | null) =>
    Array.from({ length: ROUNDS }, (_, i) => {
      const [ra, rb] = [rows.find((r) => r.round === i + 1 && r.which === 'A')!, rows.find((r) => r.round === i + 1 && r.which === 'B')!];
      const [va, vb] = [f(ra), f(rb)];
      return va === null || vb === null ? NaN : vb / va;
    });
  const fmt = (xs: number[]) => {
    const ci = medianInterval(xs);
    return `${median(xs).toFixed(3)}${ci ? ` [95 % CI ${ci[0].toFixed(3)} to ${ci[1].toFixed(3)}]` : ''} (${xs.map((x) => x.toFixed(2)).join(', ')})`;
  };
  const latency = rows[0]!.p50 !== null;
  const per = (which: string, f: (r: (typeof rows)[number]) => number | null) => rows.filter((r) => r.which === which).map(f).join(', ');
  const revoking = scenario === 'revoke' || scenario === 'revoke-one-product';
  process.stdout.write(
    `${scenario} on ${store}, ${ROUNDS} rounds${ALTERNATE ? ' (order alternating)' : ''} of ${revoking ? `${REVOKE.amount} requests (warm-up ${REVOKE.warm})` : `${SECONDS} s`}, ${CONNECTIONS} connections, load average ${loadavg().map((l) => l.toFixed(2)).join(', ')}\n` +
      (rows.some((r) => r.failures) ? `NOT CLEAN, failed requests per measured round A: ${per('A', (r) => r.failures)}; B: ${per('B', (r) => r.failures)}\n` : '') +
      `A per second: ${rows.filter((r) => r.which === 'A').map((r) => r.perSecond).join(', ')}\n` +
      `B per second: ${rows.filter((r) => r.which === 'B').map((r) => r.perSecond).join(', ')}\n` +
      `B/A throughput: ${fmt(pairs((r) => r.perSecond))}\n` +
      (latency
        ? `p50 ms A: ${per('A', (r) => r.p50)} (median ${median(rows.filter((r) => r.which === 'A').map((r) => r.p50!))}); B: ${per('B', (r) => r.p50)} (median ${median(rows.filter((r) => r.which === 'B').map((r) => r.p50!))})\n` +
          `p99 ms A: ${per('A', (r) => r.p99)} (median ${median(rows.filter((r) => r.which === 'A').map((r) => r.p99!))}); B: ${per('B', (r) => r.p99)} (median ${median(rows.filter((r) => r.which === 'B').map((r) => r.p99!))})\n` +
          `B/A p50: ${fmt(pairs((r) => r.p50))}\nB/A p99: ${fmt(pairs((r) => r.p99))}\n`
        : '') +
      `B/A server CPU per request: ${fmt(pairs((r) => r.serverUs))}\n` +
      (dbPid === null || stores.A !== stores.B ? '' : `B/A MariaDB CPU per request: ${fmt(pairs((r) => r.dbUs))}\n`) +
      `server µs per request A: ${rows.filter((r) => r.which === 'A').map((r) => r.serverUs).join(', ')}; B: ${rows.filter((r) => r.which === 'B').map((r) => r.serverUs).join(', ')}\n` +
      (dbPid === null ? '' : `MariaDB µs per request A: ${rows.filter((r) => r.which === 'A').map((r) => r.dbUs).join(', ')}; B: ${rows.filter((r) => r.which === 'B').map((r) => r.dbUs).join(', ')}\n`),
  );
} finally {
  for (const s of servers) await s.stop();
  if (usesMysql) {
    await dropDatabases(MYSQL, separate ? [`${name}_A`, `${name}_B`] : [name]);
  }
  for (const outbox of outboxes) await rm(outbox, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
}
