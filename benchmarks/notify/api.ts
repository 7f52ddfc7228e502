// What one subscribed endpoint costs a vendor's request (issue 28: "webhook ingest and license
// creation with one subscribed endpoint cost at most 10% more than without, same run"), measured
// where a vendor meets it: through the HTTP API of the reference server. License creation is
// `POST /v1/licenses` with the API key (autocannon, http/load.ts); webhook ingest is signed
// provider_a purchases to the integration's webhook route (http/webhooks.ts), charged over the new
// purchases only. The server is notify/api-server.ts: the same h3 app and Node listener as `serve`,
// in a process of its own, WITHOUT the notification dispatcher (`serve` always runs one), so the
// figure is what queueing the notification costs the request (the resource's view, the body, the
// delivery record in the unit's transaction) and nothing of its sending. The sending is measured
// apart, by notify/dispatch.ts (CPU per delivery), and has a target of its own (deliveries per second).
// Paired and interleaved: `rounds` rounds, each a phase without and a phase with the endpoint
// (enabled or disabled through `PATCH /v1/webhook-endpoints/{id}` between phases, outside the
// timing), the order alternating (without-with, with-without, ...), so the drift of a shared
// machine falls on both sides. Measure: CPU of the server process per request (on MariaDB also
// with the database's CPU beside it); the verdict is the median of the rounds' changes with its
// 95% bootstrap interval (ci.ts), beside the pooled change and the sign-test interval (http/median.ts).
//   npx tsx notify/api.ts embedded|mysql [rounds=16] [seconds per phase=3]
// BENCH_CONNECTIONS (16) requests in flight; BENCH_SCENARIOS=creation|ingest runs that scenario only.
// Needs `pnpm build` (the server script runs the built packages).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, databasePidOf } from '../http/cpu.js';
import { load } from '../http/load.js';
import { median, medianInterval } from '../http/median.js';
import { assertBuilt, startScript } from '../http/processes.js';
import type { Running } from '../http/processes.js';
import { ingest, seedIntegration } from '../http/webhooks.js';
import { changeInterval, formatInterval, medianChangeInterval } from './ci.js';
import { MYSQL, databaseUrl, dropDatabases } from '../http/database-url.js';
import { vendor } from '../http/vendor.js';

const which = process.argv[2] === 'mysql' ? 'mysql' : 'embedded';
const ROUNDS = Number(process.argv[3] ?? 16);
const SECONDS = Number(process.argv[4] ?? 3);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 16);
const serverScript = fileURLToPath(new URL('./api-server.ts', import.meta.url));
const log = (msg: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);

type Scenario = 'license creation' | 'webhook ingest';
interface Row { scenario: Scenario; round: number; without: number; with: number; withDb: number; withoutDb: number; rate: { without: number; with: number }; failures: number }

async function measure(server: Running, dbPids: number[]): Promise<Row[]> {
  const apiKey = server.listening['apiKey'] as string;
  const setup = await seedIntegration(server.url, apiKey);
  const plans = (await vendor(server.url, apiKey, 'GET', `/products/${setup.productId}/plans`)).data as { id: string; code: string }[];
  const lifetime = plans.find((p) => p.code === 'lifetime')!.id;
  // Never sent (no dispatcher): any public https URL the vendor API accepts.
  const endpoint = await vendor(server.url, apiKey, 'POST', '/webhook-endpoints', { url: 'https://hooks.bench.test/svc', description: 'benchmark' });
  let n = 0;
  const createLicense = {
    method: 'POST' as const, path: '/v1/licenses', headers: { authorization: `Bearer ${apiKey}` },
    body: () => JSON.stringify({ plan: lifetime, email: `created-${n++}@bench.test`, sendEmail: false }),
  };
  const serverCpu = () => cpuSeconds(server.pid) ?? 0;
  const dbCpu = () => dbPids.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0);
  /** One timed phase: [server CPU µs per operation, database CPU µs per operation, rate, failures]. */
  const phases: Record<Scenario, () => Promise<[number, number, number, number]>> = {
    'license creation': async () => {
      const [s, d] = [serverCpu(), dbCpu()];
      const r = await load([server.url], createLicense, { connections: CONNECTIONS, seconds: SECONDS });
      return [(1e6 * (serverCpu() - s)) / r.total, (1e6 * (dbCpu() - d)) / r.total, r.requestsPerSecond, r.failures];
    },
    'webhook ingest': async () => {
      const [s, d] = [serverCpu(), dbCpu()];
      let cpu: [number, number] = [0, 0];
      const { fresh, duplicates } = await ingest([server.url], setup, {
        connections: CONNECTIONS, seconds: SECONDS, onFreshDone: () => (cpu = [serverCpu() - s, dbCpu() - d]),
      });
      return [(1e6 * cpu[0]) / fresh.total, (1e6 * cpu[1]) / fresh.total, fresh.eventsPerSecond, fresh.failures + duplicates.failures];
    },
  };
  const only = process.env['BENCH_SCENARIOS'];
  const measured = (Object.keys(phases) as Scenario[]).filter((s) => !only || s.includes(only));
  const enable = (enabled: boolean) => vendor(server.url, apiKey, 'PATCH', `/webhook-endpoints/${endpoint.id}`, { enabled });
  // Warm-up of both paths in both phases (JIT, pools).
  for (const enabled of [false, true]) {
    await enable(enabled);
    for (const scenario of measured) await phases[scenario]();
  }
  const rows: Row[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const scenario of measured) {
      const row: Row = { scenario, round, without: 0, with: 0, withoutDb: 0, withDb: 0, rate: { without: 0, with: 0 }, failures: 0 };
      for (const phase of round % 2 === 1 ? (['without', 'with'] as const) : (['with', 'without'] as const)) {
        await enable(phase === 'with');
        const [cpu, db, rate, failures] = await phases[scenario]();
        row[phase] = Math.round(cpu);
        row[phase === 'with' ? 'withDb' : 'withoutDb'] = Math.round(db);
        row.rate[phase] = rate;
        row.failures += failures;
      }
      rows.push(row);
      log(JSON.stringify(row));
    }
  }
  const queued = (await vendor(server.url, apiKey, 'GET', `/webhook-endpoints/${endpoint.id}/deliveries`)).data.length;
  if (queued === 0) throw new Error('no delivery was queued in the phases with the endpoint');
  return rows;
}

function report(rows: Row[], started: string, loadAtStart: string): void {
  const pct = (a: number, b: number) => `${b >= a ? '+' : '−'}${Math.abs((b / a - 1) * 100).toFixed(1)}%`;
  console.log(`\nStore ${which}; through the HTTP API (notify/api-server.ts, no dispatcher); ${ROUNDS} rounds of ${SECONDS} s per phase, ${CONNECTIONS} in flight; ${cpus()[0]?.model}, ${cpus().length} cores, Node ${process.version}; started ${started} UTC (load ${loadAtStart}), load at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
  const db = which === 'mysql';
  console.log(`| Scenario | Round (order) | Server CPU µs per operation without | with one endpoint | Change |${db ? ' Database µs without / with |' : ''} Rate without / with (per s) | Failures |`);
  console.log(`|---|---|---|---|---|${db ? '---|' : ''}---|---|`);
  for (const r of rows) {
    console.log(`| ${r.scenario} | ${r.round} (${r.round % 2 ? 'without first' : 'with first'}) | ${r.without} | ${r.with} | ${pct(r.without, r.with)} |${db ? ` ${r.withoutDb} / ${r.withDb} |` : ''} ${r.rate.without} / ${r.rate.with} | ${r.failures} |`);
  }
  console.log('');
  for (const scenario of new Set(rows.map((r) => r.scenario))) {
    const mine = rows.filter((r) => r.scenario === scenario);
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const signTest = medianInterval(mine.map((r) => r.with / r.without - 1));
    const added = median(mine.map((r) => r.with - r.without));
    const whole = mine.map((r) => ({ without: r.without + r.withoutDb, with: r.with + r.withDb }));
    console.log(
      `${scenario}: server CPU ${mean(mine.map((r) => r.without)).toFixed(0)} → ${mean(mine.map((r) => r.with)).toFixed(0)} µs per operation; ` +
        `**median of the rounds ${formatInterval(medianChangeInterval(mine))}** (sign-test interval ${signTest ? signTest.map((x) => `${(x * 100).toFixed(1)}%`).join(' to ') : '-'}); ` +
        `median added ${added} µs; pooled ${formatInterval(changeInterval(mine))}` +
        (db ? `; server and database together: median ${formatInterval(medianChangeInterval(whole))}` : '') +
        `; failures ${mine.reduce((s, r) => s + r.failures, 0)}`,
    );
  }
}

assertBuilt();
const started = new Date().toISOString().slice(11, 19);
const loadAtStart = loadavg().map((l) => l.toFixed(1)).join(' ');
const dir = await mkdtemp(join(tmpdir(), 'svc-bench-api-'));
const database = `bench_notify_api_${randomBytes(5).toString('hex')}`;
const dbPids = which === 'mysql' ? [await databasePidOf(MYSQL)].filter((p): p is number => p !== null) : [];
const where = which === 'mysql' ? databaseUrl(MYSQL, database) : join(dir, 'data');
const server = await startScript(serverScript, [which, where, join(dir, 'mail')], {}, 'notify/api-server.ts');
try {
  report(await measure(server, dbPids), started, loadAtStart);
} finally {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
  if (which === 'mysql') {
    await dropDatabases(MYSQL, [database]);
  }
}
