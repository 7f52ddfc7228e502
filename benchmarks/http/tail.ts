// Where the validate's tail latency comes from: one server process (the embedded store, or one
// MariaDB with the limits in Redis, as the targets measure it) preloaded with
// tail-probe.cjs, driven like run.ts (autocannon, a 2 s warm-up), several short rounds at each
// connection count. Per round: the client's p50/p99, the server's own time per request, the waits
// for a pooled connection, MariaDB's and Redis' answers, the event loop's delay and V8's GC pauses,
// and the CPU per request. Needs `pnpm build`; from benchmarks/:
//
//   npx tsx http/tail.ts <embedded|mysql> [more store options, e.g. poolSize=4]
//
// BENCH_TAIL_CONNECTIONS (default `32`, comma-separated), BENCH_TAIL_ROUNDS (3), BENCH_SECONDS (5),
// BENCH_SERVER_NODE_ARGS (Node flags of the server, e.g. `--max-semi-space-size=32`).
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, databasePidOf } from './cpu.js';
import { MYSQL, databaseUrl, dropDatabases } from './database-url.js';
import { load } from './load.js';
import { runCli, startServer } from './processes.js';
import type { Running } from './processes.js';
import { knownMachines, seedLicenses } from './seed.js';

const [store, ...extra] = process.argv.slice(2);
if (!['embedded', 'mysql'].includes(store ?? '')) throw new Error('usage: tail.ts <embedded|mysql> [store options]');
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 5);
const ROUNDS = Number(process.env['BENCH_TAIL_ROUNDS'] ?? 3);
const CONNECTIONS = (process.env['BENCH_TAIL_CONNECTIONS'] ?? '32').split(',').map(Number);
const REDIS = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379/0';
const probe = fileURLToPath(new URL('./tail-probe.cjs', import.meta.url));
const ms = (n: number) => (n < 10 ? n.toFixed(1) : n.toFixed(0));

interface Stat { count: number; mean: number; p50: number; p90: number; p99: number; max: number; sum: number }
type Report = Record<'request' | 'poolWait' | 'mysql' | 'redis' | 'gc' | 'gcMajor', Stat> & { loopDelay: { mean: number; p50: number; p99: number; max: number } };

const work = await mkdtemp(join(tmpdir(), 'svc-tail-'));
const out = join(work, 'probe.json');
const name = `bench_${randomBytes(6).toString('hex')}`;
const env = { SVC_MASTER_KEY: randomBytes(32).toString('base64'), TAIL_PROBE_OUT: out };
const storeArgs =
  store === 'embedded'
    ? ['--data', join(work, 'data')]
    : ['--database', databaseUrl(MYSQL, name, extra.join('&')), '--redis-url', `${REDIS}?prefix=${name}`];
const dbPid = store === 'mysql' ? await databasePidOf(MYSQL) : null;

/** What the probe saw since the last call (it starts over). */
async function probed(server: Running): Promise<Report> {
  await rm(out, { force: true });
  process.kill(server.pid, 'SIGUSR2');
  for (let i = 0; i < 100; i++) {
    try {
      return JSON.parse(await readFile(out, 'utf8')) as Report;
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  throw new Error('the probe wrote nothing');
}

let server: Running | null = null;
try {
  if (store === 'mysql') await runCli(['migrate', '--database', storeArgs[1]!], env);
  const created = await runCli(['account', 'create', '--name', 'Tail', '--owner-email', 't@tail.test', '--service-plan', 'unlimited', ...storeArgs.slice(0, 2)], env);
  const apiKey = (JSON.parse(created) as { apiKey: string }).apiKey;
  // Node flags of the server (e.g. `--max-semi-space-size=32`) are kept: BENCH_SERVER_NODE_ARGS.
  process.env['BENCH_SERVER_NODE_ARGS'] = `${process.env['BENCH_SERVER_NODE_ARGS'] ?? ''} --require ${probe}`;
  server = await startServer(storeArgs, env);
  const seeded = await seedLicenses(server.url, apiKey, 200);
  const spec = { method: 'POST' as const, path: '/v1/licenses/validate', body: knownMachines(seeded) };
  await load([server.url], spec, { connections: 32, seconds: 2 });
  process.stdout.write(`validate on ${store} ${extra.join(' ')} ${process.env['BENCH_SERVER_NODE_ARGS']?.split(' --require')[0] ?? ''}, ${SECONDS} s rounds; per request: server CPU; times in ms (p50/p99)\n`);
  process.stdout.write('| conns | load avg | req/s | client p50/p99 | server p50/p99 | pool wait p99 | MariaDB n/req, p50/p99 | Redis p50/p99 | loop delay p99/max | scavenges n, total, max | other GC n, total, max | CPU µs/req (server, db) |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n');
  for (const connections of CONNECTIONS) {
    for (let round = 0; round < ROUNDS; round++) {
      await probed(server);
      const before = { server: cpuSeconds(server.pid) ?? 0, db: dbPid === null ? null : cpuSeconds(dbPid) };
      const result = await load([server.url], spec, { connections, seconds: SECONDS });
      const r = await probed(server);
      const cpu = { server: (cpuSeconds(server.pid) ?? 0) - before.server, db: dbPid === null || before.db === null ? null : (cpuSeconds(dbPid) ?? 0) - before.db };
      const per = (s: number | null) => (s === null ? '-' : ((s * 1e6) / result.total).toFixed(0));
      const cells = [
        connections,
        loadavg()[0]!.toFixed(1),
        result.requestsPerSecond,
        `${result.p50}/${result.p99}`,
        `${ms(r.request.p50)}/${ms(r.request.p99)}`,
        r.poolWait.count ? ms(r.poolWait.p99) : '-',
        r.mysql.count ? `${(r.mysql.count / r.request.count).toFixed(2)}, ${ms(r.mysql.p50)}/${ms(r.mysql.p99)}` : '-',
        r.redis.count ? `${ms(r.redis.p50)}/${ms(r.redis.p99)}` : '-',
        `${ms(r.loopDelay.p99)}/${ms(r.loopDelay.max)}`,
        `${r.gc.count}, ${ms(r.gc.sum)}, ${ms(r.gc.max)}`,
        `${r.gcMajor.count}, ${ms(r.gcMajor.sum)}, ${ms(r.gcMajor.max)}`,
        `${per(cpu.server)}, ${per(cpu.db)}`,
      ];
      process.stdout.write(`| ${cells.join(' | ')} |\n`);
    }
  }
} finally {
  await server?.stop();
  if (store === 'mysql') {
    await dropDatabases(MYSQL, [name]);
  }
  await rm(work, { recursive: true, force: true });
}
