// Floating seats (issue 27), over-allocation: rounds of 50 machines racing for the last seat of a
// floating license through several server processes at once. Each round: two machines hold two of
// the three seats (heartbeating), 50 new machines ask `activate` at the same instant, spread over the
// servers; exactly one may win, the other 49 must be `409 activation_limit`, and the license's live
// leases (vendor API, sampled during and after the race) must never exceed its limit. The winner then
// frees its seat (`deactivate`) for the next round.
//
//   npx -y pnpm@10.34.9 --filter @svc-licensing/benchmarks bench:seats-race [embedded|mysql|galera]
//   BENCH_RACE_ROUNDS=200 (50 on Galera), BENCH_RACE_MACHINES=50
//
// The embedded store is one process only (it locks its data folder), so its rounds go through one
// server. MariaDB: two servers on one database. Galera: one server per node (run it under
// `flock /tmp/galera.lock`, cluster started by scripts/galera-start.sh), rate limits in Redis.
// Every request carries its own X-Forwarded-For address (servers run with --trust-proxy) so the
// per-IP budgets of floating calls (6,000 an hour) do not refuse the 10,000 calls of a run.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { runCli, startServer, type Running } from '../http/processes.js';
import { MYSQL, databaseUrl } from '../http/database-url.js';

const REDIS = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379/0';
const GALERA = ['mysql://root@127.0.0.1:3311', 'mysql://root@127.0.0.1:3312', 'mysql://root@127.0.0.1:3313'];
const MACHINES = Number(process.env['BENCH_RACE_MACHINES'] ?? 50);
const LIMIT = 3;
const log = (msg: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);

let ipSeq = 0;
/** A fresh client address for each call (10.x.y.z), as a reverse proxy would report it. */
const nextIp = () => {
  const n = ++ipSeq;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};

async function call(url: string, path: string, body: unknown, headers: Record<string, string> = {}, method = 'POST') {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'x-forwarded-for': nextIp(), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

interface Outcome {
  rounds: number;
  oneWinner: number;
  badRounds: string[];
  maxLive: number;
  roundMs: number[];
}

/** Creates the floating plan and license, then runs the rounds against `servers`. */
async function race(servers: Running[], apiKey: string, rounds: number): Promise<Outcome> {
  const auth = { authorization: `Bearer ${apiKey}` };
  const vendor = async (method: string, path: string, body?: unknown) => {
    const r = await call(servers[0]!.url, `/v1${path}`, body, auth, method);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const product = await vendor('POST', '/products', { name: 'Race App', keyPrefix: 'RC-' });
  const plan = await vendor('POST', `/products/${product.id}/plans`, { code: 'team', kind: 'perpetual', seatMode: 'floating', maxActivations: LIMIT, leaseSeconds: 900 });
  const license = await vendor('POST', '/licenses', { plan: plan.id, email: 'race@bench.test' });
  const machine = (fingerprint: string) => ({ product: product.id, key: license.key, fingerprint });
  const holders = [randomBytes(32).toString('hex'), randomBytes(32).toString('hex')];
  for (const h of holders) {
    const r = await call(servers[0]!.url, '/v1/licenses/activate', machine(h));
    if (r.status !== 200) throw new Error(`holder activate: ${r.status} ${JSON.stringify(r.body)}`);
  }
  const live = async (server: Running) => (await call(server.url, `/v1/licenses/${license.id}`, undefined, auth, 'GET')).body.liveLeases as number;
  const out: Outcome = { rounds, oneWinner: 0, badRounds: [], maxLive: 0, roundMs: [] };
  for (let round = 0; round < rounds; round++) {
    // The holders heartbeat each round, so their leases stay live however long the run takes.
    await Promise.all(holders.map((h, i) => call(servers[i % servers.length]!.url, '/v1/licenses/validate', machine(h))));
    const fps = Array.from({ length: MACHINES }, () => randomBytes(32).toString('hex'));
    const started = performance.now();
    const [answers, during] = await Promise.all([
      Promise.all(fps.map((fp, i) => call(servers[i % servers.length]!.url, '/v1/licenses/activate', machine(fp)))),
      Promise.all(servers.map(live)),
    ]);
    out.roundMs.push(performance.now() - started);
    const after = await Promise.all(servers.map(live));
    const winners = answers.flatMap((a, i) => (a.status === 200 ? [fps[i]!] : []));
    const refused = answers.filter((a) => a.status === 409 && a.body?.error?.code === 'activation_limit').length;
    out.maxLive = Math.max(out.maxLive, ...during, ...after);
    if (winners.length === 1 && refused === MACHINES - 1 && Math.max(...during, ...after) <= LIMIT) out.oneWinner++;
    else out.badRounds.push(`round ${round}: ${winners.length} winners, ${refused} refused, other answers ${JSON.stringify(answers.filter((a) => a.status !== 200 && a.status !== 409).slice(0, 2))}, live ${during}/${after}`);
    for (const w of winners) {
      const r = await call(servers[round % servers.length]!.url, '/v1/licenses/deactivate', machine(w));
      if (r.status !== 200) throw new Error(`deactivate: ${r.status} ${JSON.stringify(r.body)}`);
    }
    if ((round + 1) % 50 === 0) log(`${round + 1} rounds, ${out.oneWinner} with one winner, max live ${out.maxLive}`);
  }
  return out;
}

function report(store: string, processes: number, o: Outcome): void {
  const sorted = [...o.roundMs].sort((a, b) => a - b);
  const p = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(0);
  console.log(
    `| ${store} | ${processes} | ${o.rounds} x ${MACHINES} | ${o.oneWinner} of ${o.rounds} | ${o.maxLive} (limit ${LIMIT}) | ${p(0.5)} / ${p(0.99)} | ${loadavg().map((l) => l.toFixed(1)).join(' ')} |`,
  );
  for (const b of o.badRounds.slice(0, 10)) console.log(`  ${b}`);
}

const env = { SVC_TRUST_PROXY: '1' };

async function embedded(rounds: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-race-'));
  const args = ['--data', join(dir, 'data')];
  try {
    const apiKey = (JSON.parse(await runCli(['account', 'create', '--name', 'Race', '--owner-email', 'race@bench.test', '--service-plan', 'unlimited', ...args], env)) as { apiKey: string }).apiKey;
    const server = await startServer([...args, '--outbox', join(dir, 'outbox')], env);
    try {
      report('embedded', 1, await race([server], apiKey, rounds));
    } finally {
      await server.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function database(store: string, nodes: string[], rounds: number, withRedis: boolean): Promise<void> {
  const name = `race_${randomBytes(6).toString('hex')}`;
  const dbEnv = { ...env, SVC_MASTER_KEY: randomBytes(32).toString('base64') };
  const outbox = join(tmpdir(), `svc-race-outbox-${process.pid}`);
  const args = (node: string) => ['--database', databaseUrl(node, name), '--outbox', outbox, ...(withRedis ? ['--redis-url', `${REDIS}?prefix=${name}`] : [])];
  const admin = await createConnection({ uri: nodes[0]! });
  const servers: Running[] = [];
  try {
    await runCli(['migrate', '--database', databaseUrl(nodes[0]!, name)], dbEnv);
    const apiKey = (JSON.parse(await runCli(['account', 'create', '--name', 'Race', '--owner-email', 'race@bench.test', '--service-plan', 'unlimited', '--database', databaseUrl(nodes[0]!, name)], dbEnv)) as { apiKey: string }).apiKey;
    for (const node of nodes) servers.push(await startServer(args(node), dbEnv));
    report(store, servers.length, await race(servers, apiKey, rounds));
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await admin.end();
    await rm(outbox, { recursive: true, force: true });
  }
}

const which = process.argv[2] ?? 'all';
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model}, Node ${process.version}; load average at start ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log('| store | server processes | rounds x machines | rounds with one winner, 49 refused, live <= limit | most live leases seen | round ms p50 / p99 | load average after |');
console.log('|---|---|---|---|---|---|---|');
const rounds = (dflt: number) => Number(process.env['BENCH_RACE_ROUNDS'] ?? dflt);
if (which === 'all' || which === 'embedded') await embedded(rounds(200));
if (which === 'all' || which === 'mysql') await database('MariaDB', [MYSQL, MYSQL], rounds(200), false);
if (which === 'galera') await database('Galera 3 nodes', GALERA, rounds(50), true);
