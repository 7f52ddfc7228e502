// Where a server's CPU goes under the HTTP benchmark's load: one server process started with
// `--cpu-prof`, one scenario driven as run.ts drives it (32 connections, a 2 s warm-up), and the
// profile's samples of the measured seconds only (the seeding and the warm-up left out) summarized
// by function and package, per request (profile-summary.ts). Needs `pnpm build`; from benchmarks/:
//
//   npx tsx http/profile.ts <validate|webhook|subscription|revoke> <embedded|mysql> [more store options]
//
// `revoke`: POST /v1/licenses/{id}/revoke as http/ab.ts runs it (BENCH_REVOKE_AMOUNT revokes,
// default 5000, after 500 unmeasured, licenses spread over BENCH_REVOKE_PRODUCTS products, default
// 32). BENCH_PROFILE_CLI: another checkout's built CLI (packages/server/bin/svc-licensing.cjs) to
// profile instead of this one's, e.g. the A side of an A/B.
//
// `mysql` is one MariaDB (BENCH_MYSQL_URL) with the rate limits in Redis (BENCH_REDIS_URL), as
// the targets measure it. BENCH_SECONDS (default 10), BENCH_CONNECTIONS (32) and
// BENCH_PROFILE_INTERVAL (the sampling interval in µs, default 250) change the defaults;
// BENCH_OUTBOX_DIR puts the key e-mails' outbox under another folder (e.g. /dev/shm; http/outbox.ts);
// BENCH_PROFILE_KEEP=1 keeps the .cpuprofile (its path and measured window are printed) to open in
// Chrome's DevTools. BENCH_PROFILE_PHASE=duplicates measures a webhook scenario's re-deliveries
// (every processed event delivered again) instead of its fresh purchases.
// V8's sampler takes its samples by the wall clock: on a busy machine, time the event loop spent
// preempted is charged to the function it was in (often a socket write that woke another
// process). BENCH_PROFILE_PERF=1 also records the server with Linux `perf` (CPU time only, kernel
// included, JavaScript frames named through `--perf-basic-prof`) and prints its top entries.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSeconds, databasePidOf } from './cpu.js';
import { MYSQL, databaseUrl, dropDatabases } from './database-url.js';
import { load } from './load.js';
import { outboxFolder } from './outbox.js';
import { runCli, startServer } from './processes.js';
import type { Running } from './processes.js';
import { report, summarize } from './profile-summary.js';
import type { CpuProfile } from './profile-summary.js';
import { revokeAll } from './revoke.js';
import { knownMachines, seedLicenses, seedRevocable } from './seed.js';
import { ingest, seedIntegration } from './webhooks.js';

const [scenario, store, ...extra] = process.argv.slice(2);
if (!['validate', 'webhook', 'subscription', 'revoke'].includes(scenario ?? '') || !['embedded', 'mysql'].includes(store ?? '')) {
  throw new Error('usage: profile.ts <validate|webhook|subscription|revoke> <embedded|mysql>');
}
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 32);
const INTERVAL = Number(process.env['BENCH_PROFILE_INTERVAL'] ?? 250);
const REDIS = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379/0';
const log = (msg: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);
/** The monotonic clock of V8's profiles, in µs. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** The top entries of `perf report` by symbol (self time), with their share. */
function perfTop(data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('perf', ['report', '-i', data, '--stdio', '--no-children', '--sort', process.env['BENCH_PERF_SORT'] ?? 'dso,sym', '-g', 'none', '--percent-limit', '0.7'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.on('error', reject);
    child.on('exit', () => resolve(out.split('\n').filter((l) => l.trim() && !l.startsWith('#')).join('\n')));
  });
}

const work = await mkdtemp(join(tmpdir(), 'svc-profile-'));
const profiles = join(work, 'profiles');
const name = `bench_${randomBytes(6).toString('hex')}`;
const env = { SVC_MASTER_KEY: randomBytes(32).toString('base64') };
const storeArgs =
  store === 'embedded'
    ? ['--data', join(work, 'data')]
    : ['--database', databaseUrl(MYSQL, name, extra.join('&')), '--redis-url', `${REDIS}?prefix=${name}`];
const dbPid = store === 'mysql' ? await databasePidOf(MYSQL) : null;
log(`${scenario} on ${store}, ${CONNECTIONS} connections, ${SECONDS} s, load average ${loadavg()[0]!.toFixed(2)}`);

let server: Running | null = null;
let outbox: string | null = null;
try {
  const cli = process.env['BENCH_PROFILE_CLI'];
  if (store === 'mysql') await runCli(['migrate', '--database', storeArgs[1]!], env, cli);
  const created = await runCli(['account', 'create', '--name', 'Profile', '--owner-email', 'p@profile.test', '--service-plan', 'unlimited', ...storeArgs.slice(0, 2)], env, cli);
  const apiKey = (JSON.parse(created) as { apiKey: string }).apiKey;
  const perf = process.env['BENCH_PROFILE_PERF'] === '1';
  process.env['BENCH_SERVER_NODE_ARGS'] = `--cpu-prof --cpu-prof-dir=${profiles} --cpu-prof-interval=${INTERVAL}${perf ? ' --perf-basic-prof' : ''}`;
  outbox = await outboxFolder('profile', work);
  server = await startServer([...storeArgs, '--outbox', outbox], env, cli);
  const perfData = join(work, 'perf.data');
  let recording: ReturnType<typeof spawn> | null = null;
  /** Starts `perf record` of the server (BENCH_PROFILE_PERF=1). */
  const perfStart = () => {
    if (perf) recording = spawn('perf', ['record', '-q', '-e', 'cpu-clock', '-F', '1000', '-g', '-o', perfData, '-p', String(server!.pid)], { stdio: 'ignore' });
  };
  const perfStop = () => recording?.kill('SIGINT');
  let measured: { from: number; to: number; requests: number; cpu: { server: number; db: number | null }; line: string };
  const cpuNow = () => ({ server: cpuSeconds(server!.pid) ?? 0, db: dbPid === null ? null : cpuSeconds(dbPid) });
  if (scenario === 'revoke') {
    const amount = Number(process.env['BENCH_REVOKE_AMOUNT'] ?? 5000);
    const ids = await seedRevocable(server.url, apiKey, amount + 500, Number(process.env['BENCH_REVOKE_PRODUCTS'] ?? 32));
    await revokeAll(server.url, apiKey, ids.slice(0, 500), CONNECTIONS);
    perfStart();
    const before = cpuNow();
    const from = monotonicUs();
    const result = await revokeAll(server.url, apiKey, ids.slice(500), CONNECTIONS);
    const to = monotonicUs();
    perfStop();
    const after = cpuNow();
    measured = {
      from,
      to,
      requests: result.total,
      cpu: { server: after.server - before.server, db: after.db === null || before.db === null ? null : after.db - before.db },
      line: `${Math.round(result.total / ((to - from) / 1e6))} revokes/s, p50 ${result.p50} ms, p99 ${result.p99} ms, failures ${JSON.stringify(result.failureKinds)}`,
    };
  } else if (scenario === 'validate') {
    const seeded = await seedLicenses(server.url, apiKey, 200);
    const spec = { method: 'POST' as const, path: '/v1/licenses/validate', body: knownMachines(seeded) };
    await load([server.url], spec, { connections: CONNECTIONS, seconds: 2 });
    perfStart();
    const before = cpuNow();
    const from = monotonicUs();
    const result = await load([server.url], spec, { connections: CONNECTIONS, seconds: SECONDS });
    const to = monotonicUs();
    perfStop();
    const after = cpuNow();
    measured = {
      from,
      to,
      requests: result.total,
      cpu: { server: after.server - before.server, db: after.db === null || before.db === null ? null : after.db - before.db },
      line: `${result.requestsPerSecond} requests/s, p50 ${result.p50} ms, p99 ${result.p99} ms, failures ${result.failures}`,
    };
  } else {
    const setup = await seedIntegration(server.url, apiKey);
    const kind = scenario === 'subscription' ? 'subscription' : 'one-time';
    await ingest([server.url], setup, { connections: CONNECTIONS, seconds: 2, kind });
    // The fresh purchases run for SECONDS, then their re-deliveries: one of the two is measured,
    // the fresh ones unless BENCH_PROFILE_PHASE=duplicates.
    const duplicatesPhase = process.env['BENCH_PROFILE_PHASE'] === 'duplicates';
    let before = cpuNow();
    let from = monotonicUs();
    if (!duplicatesPhase) perfStart();
    let to = 0;
    let after = before;
    const onFreshDone = () => {
      if (duplicatesPhase) {
        perfStart();
        before = cpuNow();
        from = monotonicUs();
        return;
      }
      perfStop();
      to = monotonicUs();
      after = cpuNow();
    };
    const { fresh, duplicates } = await ingest([server.url], setup, { connections: CONNECTIONS, seconds: SECONDS, kind, onFreshDone });
    if (duplicatesPhase) {
      perfStop();
      to = monotonicUs();
      after = cpuNow();
    }
    const phase = duplicatesPhase ? duplicates : fresh;
    measured = {
      from,
      to,
      requests: phase.total,
      cpu: { server: after.server - before.server, db: after.db === null || before.db === null ? null : after.db - before.db },
      line: `${phase.eventsPerSecond} events/s${duplicatesPhase ? ' (re-deliveries)' : ''}, failures ${JSON.stringify(phase.failureKinds)}`,
    };
  }
  await server.stop();
  server = null;
  const [file] = (await readdir(profiles)).filter((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('the server wrote no profile');
  const profile = JSON.parse(await readFile(join(profiles, file), 'utf8')) as CpuProfile;
  const seconds = (measured.to - measured.from) / 1e6;
  const cpu =
    ` Server process ${(measured.cpu.server / seconds).toFixed(2)} cores (${((measured.cpu.server * 1e6) / measured.requests).toFixed(0)} µs per request, signing thread included)` +
      (measured.cpu.db === null ? '' : `, MariaDB ${(measured.cpu.db / seconds).toFixed(2)} cores (${((measured.cpu.db * 1e6) / measured.requests).toFixed(0)} µs per request)`) +
      '.';
  process.stdout.write(
    `${scenario} on ${store}: ${measured.line}; load average ${loadavg().map((l) => l.toFixed(2)).join(', ')}.${cpu}\n\n` +
      `${report(summarize(profile, measured.from, measured.to), measured.requests)}\n`,
  );
  if (recording) {
    const exited = recording as ReturnType<typeof spawn>;
    if (exited.exitCode === null) await new Promise((resolve) => exited.once('exit', resolve));
    process.stdout.write(`\nperf (CPU time of the server process, all threads, kernel included; self):\n\n${await perfTop(perfData)}\n`);
  }
  if (process.env['BENCH_PROFILE_KEEP']) log(`profile kept: ${join(profiles, file)} (measured window ${measured.from} to ${measured.to} µs of its clock, ${measured.requests} requests)`);
} finally {
  await server?.stop();
  if (store === 'mysql') {
    await dropDatabases(MYSQL, [name]);
  }
  if (outbox) await rm(outbox, { recursive: true, force: true });
  if (!process.env['BENCH_PROFILE_KEEP']) await rm(work, { recursive: true, force: true });
}
