// Floating seats (issue 27), heartbeat throughput: validate of machines on floating plans (each call
// extends a lease) against validate of machines on a machine plan, in the same run on the same server,
// on the embedded store and on one MariaDB with rate limits in Redis. BENCH_HB_MACHINES machines
// (10,000) over BENCH_HB_LICENSES licenses (500) of each plan, validated round robin by autocannon
// (BENCH_CONNECTIONS 32, BENCH_SECONDS 10 after a 2 s warm-up), the two plans measured alternately
// twice (A B A B) so drift of a shared machine's load falls on both. Each request carries its own
// X-Forwarded-For address (servers run with --trust-proxy), on both plans alike, so the per-IP budget
// of floating calls (6,000 an hour) does not refuse the run.
//
// A floating validate renews (writes) only when renewing would move the lease by min(60 s,
// leaseSeconds / 6) or more, and a heartbeat with less than 30 s left (LATE_HEARTBEAT_MS) takes the
// locked path and also writes the license row. The default BENCH_HB_LEASE (300 s: renewal resolution
// 50 s) with enough floating machines that each is called once, 50 to 270 s after its check-out
// (BENCH_HB_FLOATING_MACHINES=140000: seeding takes 80 to 135 s, two passes reach about 80,000 of
// them), makes every floating call a quick renewal (one compare and set of the activation), as a
// client on the SDK's schedule renews (at a third of the lease, plus jitter). A shorter lease
// measures late heartbeats instead (BENCH_HB_LEASE=120 left 15 to 30 s when the first pass reached
// a machine); with the default 10,000 floating machines each is called again within seconds, and
// most calls only read (kept). Each plan's calls go round robin over its machines, continuing where
// the previous pass (or warm-up) stopped, and the answers of the floating passes are counted:
// renewed (the lease end moved to about now + leaseSeconds) or kept (the stored lease answered,
// nothing written), printed below the table, with each pass's server CPU (Linux /proc: the event
// loop, libuv's pool that signs and writes the journal, and V8's threads) in µs per request.
//
// BENCH_HB_ROUNDS=<n> (default 2) runs n rounds of a machine-plan pass and a floating pass, each of
// BENCH_SECONDS after a BENCH_HB_WARM-second warm-up (default 2), with BENCH_HB_PAUSE seconds before
// each pass (default 0); BENCH_HB_ALTERNATE=1 runs even rounds floating first (M F, F M, ...). With more
// than 2 rounds it also prints the median of the rounds' floating / machine ratios with the 95 %
// interval of its median from the order statistics (distribution-free, as http/ab.ts), min and max,
// and the ratio of all requests of all rounds (which keeps a checkpoint's share), and first runs the
// machine plan for an untimed while so that the first validate of each of its machines (a lastSeenAt
// write, 60 s after seeding) is not timed. On this shared 2-core machine a single pass of either plan
// moves 2x between passes of one run, so one run's two-pass ratio says little; many short alternating
// rounds and their median is the figure to compare. E.g. (220,000 floating machines last 14 such
// rounds at about 5,000 renewals a second, each renewed on the quick path):
//
//   BENCH_HB_ROUNDS=14 BENCH_SECONDS=2 BENCH_HB_WARM=0.5 BENCH_HB_PAUSE=1 BENCH_HB_ALTERNATE=1 \
//     BENCH_HB_FLOATING_MACHINES=220000 npx tsx seats/heartbeat.ts embedded
//
// BENCH_HB_PROFILE=1 starts the servers with `--cpu-prof` and prints, per pass, where the server's
// event loop spent its time (profile-summary.ts), in µs per request, from the profile's samples
// of that pass's measured seconds only; BENCH_HB_PROFILE_KEEP=<folder> also keeps the profile there,
// with the passes' windows (windows.json), for a closer look.
//
//   npx -y pnpm@10.34.9 --filter @svc-licensing/benchmarks bench:seats-heartbeat [embedded|mysql]
import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { load, type LoadResult } from '../http/load.js';
import { runCli, startServer, type Running } from '../http/processes.js';
import { MYSQL, databaseUrl } from '../http/database-url.js';
import { report, summarize, type CpuProfile } from '../http/profile-summary.js';
import { cpuSeconds } from '../http/cpu.js';
import { median, medianInterval } from '../http/median.js';

const REDIS = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379/0';
const MACHINES = Number(process.env['BENCH_HB_MACHINES'] ?? 10_000);
const FLOATING_MACHINES = Number(process.env['BENCH_HB_FLOATING_MACHINES'] ?? MACHINES);
const LICENSES = Number(process.env['BENCH_HB_LICENSES'] ?? 500);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 32);
const LEASE_SECONDS = Number(process.env['BENCH_HB_LEASE'] ?? 300);
const PROFILE = process.env['BENCH_HB_PROFILE'] === '1';
const ROUNDS = Number(process.env['BENCH_HB_ROUNDS'] ?? 2);
const WARM_SECONDS = Number(process.env['BENCH_HB_WARM'] ?? 2);
const PAUSE_MS = Number(process.env['BENCH_HB_PAUSE'] ?? 0) * 1000;
const ALTERNATE = process.env['BENCH_HB_ALTERNATE'] === '1';
/** The monotonic clock of V8's profiles, in µs. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
/** What the floating passes' answers said, printed after the table. */
const notes: string[] = [];
/** Each pass's server CPU per request, printed after the notes. */
const cpu: string[] = [];
/** The measured windows of the passes, for the profile's summary. */
const windows: { label: string; from: number; to: number; requests: number }[] = [];
const log = (msg: string) => process.stderr.write(`${new Date().toISOString().slice(11, 23)} ${msg}\n`);

let ipSeq = 0;
const xff = () => {
  const n = ++ipSeq;
  return { 'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` };
};

/** `count` machines of a new plan (`seat`: machine or floating), `MACHINES` / `LICENSES` a license, each activated once. */
async function seed(url: string, apiKey: string, productId: string, seat: 'machine' | 'floating', count: number): Promise<string[]> {
  const perLicense = Math.ceil(MACHINES / LICENSES);
  const licenses = Math.ceil(count / perLicense);
  const vendor = async (method: string, path: string, body: unknown) => {
    const r = await fetch(`${url}/v1${path}`, { method, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await r.json()) as any;
    if (r.status >= 300) throw new Error(`${path}: ${r.status} ${JSON.stringify(json)}`);
    return json;
  };
  const plan = await vendor('POST', `/products/${productId}/plans`, { code: seat, kind: 'perpetual', maxActivations: perLicense, ...(seat === 'floating' ? { seatMode: 'floating', leaseSeconds: LEASE_SECONDS } : {}) });
  const bodies: string[] = [];
  for (let start = 0; start < licenses; start += 32) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(32, licenses - start) }, async (_, j) => {
        const license = await vendor('POST', '/licenses', { plan: plan.id, email: `${seat}${start + j}@bench.test` });
        const out: string[] = [];
        for (let m = 0; m < perLicense; m++) {
          const body = JSON.stringify({ product: productId, key: license.key, fingerprint: randomBytes(32).toString('hex') });
          const r = await fetch(`${url}/v1/licenses/activate`, { method: 'POST', headers: { 'content-type': 'application/json', ...xff() }, body });
          if (r.status !== 200) throw new Error(`activate: ${r.status} ${await r.text()}`);
          out.push(body);
        }
        return out;
      }),
    );
    bodies.push(...batch.flat());
  }
  return bodies;
}

async function measure(server: Running, apiKey: string, store: string): Promise<void> {
  const product = await (await fetch(`${server.url}/v1/products`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'HB App', keyPrefix: 'HB-' }) })).json() as { id: string };
  log(`${store}: seeding ${MACHINES} machines over ${LICENSES} licenses, machine plan`);
  const machine = await seed(server.url, apiKey, product.id, 'machine', MACHINES);
  log(`${store}: seeding ${FLOATING_MACHINES} machines of the floating plan`);
  const floating = await seed(server.url, apiKey, product.id, 'floating', FLOATING_MACHINES);
  log(`${store}: seeded`);
  const cursors = { machine: 0, floating: 0 };
  const answers = { renewed: 0, kept: 0 };
  // A renewed lease ends at issuedAt + leaseSeconds; a kept one at least the resolution earlier.
  const resolutionMs = Math.min(60, Math.floor(LEASE_SECONDS / 6)) * 1000;
  const countLease = (status: number, body: string) => {
    const at = body.indexOf('"leaseExpiresAt":"');
    if (status !== 200 || at < 0) return;
    const end = Date.parse(body.slice(at + 18, body.indexOf('"', at + 18)));
    if (end >= Date.now() + LEASE_SECONDS * 1000 - resolutionMs / 2) answers.renewed++;
    else answers.kept++;
  };
  const spec = (kind: 'machine' | 'floating') => {
    const bodies = kind === 'machine' ? machine : floating;
    return {
      method: 'POST' as const,
      path: '/v1/licenses/validate',
      body: () => bodies[cursors[kind]++ % bodies.length]!,
      headersFor: xff,
      ...(kind === 'floating' ? { onResponse: countLease } : {}),
    };
  };

  const results: Record<'machine' | 'floating', LoadResult[]> = { machine: [], floating: [] };
  const ratios: number[] = [];
  // Every machine-plan machine was last written at its check-out, more than 60 s ago: its first validate writes
  // lastSeenAt (LAST_SEEN_RESOLUTION_MS). Those writes go here, untimed, so the passes' machine-plan validates only read.
  // (60 s later each machine writes lastSeenAt once more: in one machine-plan pass of a long run, told apart by the median.)
  if (ROUNDS > 2) await load([server.url], spec('machine'), { connections: CONNECTIONS, seconds: Math.max(2, (2 * MACHINES) / 5000) });
  for (let round = 0; round < ROUNDS; round++) {
    // BENCH_HB_ALTERNATE=1: even rounds run floating first (M F, F M, M F, ...), so drift within a round falls on both.
    const order = ALTERNATE && round % 2 === 1 ? (['floating', 'machine'] as const) : (['machine', 'floating'] as const);
    const pass = { machine: 0, floating: 0 };
    for (const kind of order) {
      if (PAUSE_MS > 0) await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      await load([server.url], spec(kind), { connections: CONNECTIONS, seconds: WARM_SECONDS });
      Object.assign(answers, { renewed: 0, kept: 0 });
      const from = monotonicUs();
      const cpuFrom = cpuSeconds(server.pid);
      const r = await load([server.url], spec(kind), { connections: CONNECTIONS, seconds: SECONDS });
      const cpuTo = cpuSeconds(server.pid);
      windows.push({ label: `${store} ${kind} pass ${round + 1}`, from, to: monotonicUs(), requests: r.total });
      if (cpuFrom !== null && cpuTo !== null && r.total > 0) {
        cpu.push(`${store}, ${kind} pass ${round + 1}: server CPU ${Math.round(((cpuTo - cpuFrom) * 1e6) / r.total)} µs per request (${((cpuTo - cpuFrom) / SECONDS).toFixed(2)} cores)`);
      }
      results[kind].push(r);
      pass[kind] = r.total / SECONDS; // autocannon's average is of whole seconds: too few in a short pass
      const share = kind === 'floating' ? `, ${answers.renewed} renewed / ${answers.kept} kept` : '';
      if (kind === 'floating') notes.push(`${store}, floating pass ${round + 1}: ${answers.renewed} heartbeats renewed, ${answers.kept} kept the stored lease`);
      log(`${store} ${kind} pass ${round + 1}: ${r.requestsPerSecond} req/s, p99 ${r.p99} ms, failures ${r.failures}${share}`);
    }
    ratios.push(pass.floating / pass.machine);
  }
  if (ROUNDS > 2) {
    const ci = medianInterval(ratios);
    const total = (k: 'machine' | 'floating') => results[k].reduce((n, r) => n + r.total, 0);
    notes.push(
      `${store}, floating / machine per round: median ${median(ratios).toFixed(3)}` +
        `${ci ? ` [95 % CI ${ci[0].toFixed(3)} to ${ci[1].toFixed(3)}]` : ''}, min ${Math.min(...ratios).toFixed(3)}, max ${Math.max(...ratios).toFixed(3)};` +
        ` all requests of all rounds ${(total('floating') / total('machine')).toFixed(3)}; rounds ${ratios.map((x) => x.toFixed(2)).join(', ')}`,
    );
  }
  const sum = (k: 'machine' | 'floating') => ({
    rps: results[k].reduce((n, r) => n + r.requestsPerSecond, 0) / results[k].length,
    p99: Math.max(...results[k].map((r) => r.p99)),
    failures: results[k].reduce((n, r) => n + r.failures, 0),
  });
  const m = sum('machine');
  const f = sum('floating');
  console.log(
    `| ${store} | ${Math.round(m.rps)} / ${m.p99} ms | ${Math.round(f.rps)} / ${f.p99} ms | ${(f.rps / m.rps).toFixed(2)}x | ${(f.p99 / m.p99).toFixed(2)}x | ${m.failures} / ${f.failures} | ${loadavg().map((l) => l.toFixed(1)).join(' ')} |`,
  );
}

/** Starts a server, with `--cpu-prof` under BENCH_HB_PROFILE=1; `summary`, once it stopped, prints each pass's profile. */
async function start(args: string[], env: Record<string, string>): Promise<Running & { summary(): Promise<void> }> {
  const dir = PROFILE ? await mkdtemp(join(tmpdir(), 'svc-hb-prof-')) : null;
  if (dir) process.env['BENCH_SERVER_NODE_ARGS'] = `--cpu-prof --cpu-prof-dir=${dir} --cpu-prof-interval=250`;
  const server = await startServer(args, env);
  delete process.env['BENCH_SERVER_NODE_ARGS'];
  const summary = async () => {
    if (!dir) return;
    const [file] = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('the server wrote no profile');
    const keep = process.env['BENCH_HB_PROFILE_KEEP'];
    if (keep) {
      await copyFile(join(dir, file), join(keep, file));
      await writeFile(join(keep, 'windows.json'), JSON.stringify(windows));
    }
    const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile;
    for (const w of windows.splice(0)) console.log(`\n${w.label}\n\n${report(summarize(profile, w.from, w.to), w.requests, 30)}`);
    await rm(dir, { recursive: true, force: true });
  };
  return { ...server, summary };
}

const which = process.argv[2] ?? 'all';
const env = { SVC_TRUST_PROXY: '1' };
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model}, Node ${process.version}; ${MACHINES} machines over ${LICENSES} licenses on the machine plan, ${FLOATING_MACHINES} (${Math.ceil(MACHINES / LICENSES)} a license) on the floating plan, floating leaseSeconds ${LEASE_SECONDS}; ${CONNECTIONS} connections, ${SECONDS} s x ${ROUNDS} passes each (${WARM_SECONDS} s warm-up${ALTERNATE ? ', alternating' : ''}${PAUSE_MS > 0 ? `, ${PAUSE_MS / 1000} s pause` : ''}); load average at start ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log('| store | machine-plan validate req/s / worst p99 | floating heartbeat req/s / worst p99 | floating / machine | p99 floating / machine | failures (machine / floating) | load average after |');
console.log('|---|---|---|---|---|---|---|');
if (which === 'all' || which === 'embedded') {
  const dir = await mkdtemp(join(tmpdir(), 'svc-hb-'));
  const args = ['--data', join(dir, 'data')];
  try {
    const apiKey = (JSON.parse(await runCli(['account', 'create', '--name', 'HB', '--owner-email', 'hb@bench.test', '--service-plan', 'unlimited', ...args], env)) as { apiKey: string }).apiKey;
    const server = await start([...args, '--outbox', join(dir, 'outbox')], env);
    try {
      await measure(server, apiKey, 'embedded');
    } finally {
      await server.stop();
    }
    await server.summary();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
if (which === 'all' || which === 'mysql') {
  const name = `hb_${randomBytes(6).toString('hex')}`;
  const dbEnv = { ...env, SVC_MASTER_KEY: randomBytes(32).toString('base64') };
  const admin = await createConnection({ uri: MYSQL });
  try {
    await runCli(['migrate', '--database', databaseUrl(MYSQL, name)], dbEnv);
    const apiKey = (JSON.parse(await runCli(['account', 'create', '--name', 'HB', '--owner-email', 'hb@bench.test', '--service-plan', 'unlimited', '--database', databaseUrl(MYSQL, name)], dbEnv)) as { apiKey: string }).apiKey;
    const server = await start(['--database', databaseUrl(MYSQL, name), '--redis-url', `${REDIS}?prefix=${name}`, '--outbox', join(tmpdir(), `svc-hb-outbox-${process.pid}`)], dbEnv);
    try {
      await measure(server, apiKey, 'MariaDB, limits in Redis');
    } finally {
      await server.stop();
    }
    await server.summary();
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await admin.end();
  }
}
console.log(`\n${notes.join('\n')}\n${cpu.join('\n')}`);
