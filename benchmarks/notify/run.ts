// Notification benchmarks (issue 28), on the embedded store and one MariaDB:
//   dispatch:  deliveries per second from a queued outbox to a receiver process that verifies each
//              signature with the `standardwebhooks` package (targets: 1,000/s embedded, 500/s MariaDB);
//   overhead:  webhook ingest and license creation of a `serve` process without, then with, one
//              endpoint subscribed to every event (target: at most 10% slower), in one run.
// Needs `pnpm build`; run with `pnpm bench:notify` in benchmarks/. BENCH_NOTIFY_DELIVERIES (5000),
// BENCH_SECONDS (10) and BENCH_CONNECTIONS (32) change the defaults; BENCH_ONLY (comma-separated:
// `dispatch`, `overhead`, `embedded`, `mysql`) runs only those.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { openEmbeddedStore } from '../../packages/server/src/stores/embedded/index.js';
import { createMySqlStore } from '../../packages/server/src/stores/mysql/index.js';
import { databasePidOf } from '../http/cpu.js';
import { assertBuilt, runCli, startServer } from '../http/processes.js';
import type { Running } from '../http/processes.js';
import { MYSQL, databaseUrl } from '../http/database-url.js';
import { measureDispatch } from './dispatch.js';
import type { DispatchResult } from './dispatch.js';
import { measureOverhead } from './overhead.js';
import type { OverheadRow } from './overhead.js';
import { startReceiverProcess } from './receiver-process.js';
import type { ReceiverProcess } from './receiver-process.js';

const DELIVERIES = Number(process.env['BENCH_NOTIFY_DELIVERIES'] ?? 5000);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 32);
const ONLY = (process.env['BENCH_ONLY'] ?? '').split(',').map((w) => w.trim().toLowerCase()).filter(Boolean);
const wanted = (name: string, group: string[]) => {
  const chosen = ONLY.filter((w) => group.includes(w));
  return chosen.length === 0 || chosen.includes(name);
};
const PARTS = ['dispatch', 'overhead'];
const STORES = ['embedded', 'mysql'];
const log = (msg: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);

const dispatches: { store: string; result: DispatchResult }[] = [];
const overheads: { store: string; rows: OverheadRow[] }[] = [];

async function account(storeArgs: string[], env: Record<string, string>): Promise<string> {
  const out = await runCli(['account', 'create', '--name', 'Bench', '--owner-email', 'bench@bench.test', '--service-plan', 'unlimited', ...storeArgs], env);
  return (JSON.parse(out) as { apiKey: string }).apiKey;
}

async function overhead(store: string, storeArgs: string[], env: Record<string, string>, outbox: string, receiver: ReceiverProcess, databasePids: number[]): Promise<void> {
  const apiKey = await account(storeArgs, env);
  const server: Running = await startServer([...storeArgs, '--outbox', outbox, '--notify-allow', '127.0.0.1'], env);
  try {
    overheads.push({ store, rows: await measureOverhead(server, apiKey, receiver, { seconds: SECONDS, connections: CONNECTIONS, databasePids }) });
  } finally {
    await server.stop();
  }
}

async function embedded(receiver: ReceiverProcess): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-notify-'));
  try {
    if (wanted('dispatch', PARTS)) {
      const store = await openEmbeddedStore(join(dir, 'dispatch'));
      try {
        const result = await measureDispatch(store, receiver, DELIVERIES, []);
        dispatches.push({ store: 'embedded', result });
        log(`dispatch embedded: ${JSON.stringify(result)}`);
      } finally {
        await store.close();
      }
    }
    if (wanted('overhead', PARTS)) await overhead('embedded', ['--data', join(dir, 'data')], {}, join(dir, 'outbox'), receiver, []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function mysql(receiver: ReceiverProcess): Promise<void> {
  const names = [`bench_notify_${randomBytes(5).toString('hex')}`, `bench_notify_${randomBytes(5).toString('hex')}`];
  const admin = await createConnection({ uri: MYSQL });
  const dbPids = [await databasePidOf(MYSQL)].filter((p): p is number => p !== null);
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-notify-'));
  try {
    if (wanted('dispatch', PARTS)) {
      const store = createMySqlStore(databaseUrl(MYSQL, names[0]!));
      try {
        await store.ready(); // creates and migrates the database
        const result = await measureDispatch(store, receiver, DELIVERIES, dbPids);
        dispatches.push({ store: 'MariaDB', result });
        log(`dispatch MariaDB: ${JSON.stringify(result)}`);
      } finally {
        await store.close();
      }
    }
    if (wanted('overhead', PARTS)) {
      const url = databaseUrl(MYSQL, names[1]!);
      const env = { SVC_MASTER_KEY: randomBytes(32).toString('base64') };
      await runCli(['migrate', '--database', url], env);
      await overhead('MariaDB', ['--database', url], env, join(dir, 'outbox'), receiver, dbPids);
    }
  } finally {
    for (const name of names) await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await admin.end();
    await rm(dir, { recursive: true, force: true });
  }
}

function report(): void {
  const pct = (a: number, b: number) => `${((b / a - 1) * 100).toFixed(1)}%`;
  const cpu = cpus()[0]?.model ?? '?';
  console.log(`\nMachine: ${cpu}, ${cpus().length} cores, Node ${process.version}, load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`Deliveries ${DELIVERIES}, ${SECONDS} s per phase, ${CONNECTIONS} connections\n`);
  console.log('| Store | Deliveries | Seconds | Deliveries/s | CPU µs per delivery: dispatcher process / database | Queued (license creations/s) | Failed attempts | Refused | Duplicates | Cores |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const { store, result: r } of dispatches) {
    console.log(`| ${store} | ${r.deliveries} | ${r.seconds} | **${r.deliveriesPerSecond}** | ${r.dispatcherUs} / ${r.databaseUs ?? '-'} | ${r.queuedPerSecond} | ${r.failedAttempts} | ${r.refused} | ${r.duplicates} | ${r.cpu} |`);
  }
  console.log('\nLicense creation in the engine (16 at a time, no HTTP), the dispatcher not running: what queueing a notification costs the unit.\n');
  console.log('| Store | Creations/s without | with the endpoint subscribed | Change | CPU µs per creation without | with | Change |');
  console.log('|---|---|---|---|---|---|---|');
  for (const { store, result: { creation: c } } of dispatches) {
    console.log(`| ${store} | ${c.without.perSecond} | ${c.with.perSecond} | ${pct(c.without.perSecond, c.with.perSecond)} | ${c.without.cpuUs} | ${c.with.cpuUs} | **${pct(c.without.cpuUs, c.with.cpuUs)}** |`);
  }
  console.log('\n| Store | Scenario | Round | Rate without | Rate with one endpoint | Change | CPU ms per request without | with | Change | p99 ms without / with | Notifications verified (with) | Failures |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const { store, rows } of overheads) {
    for (const scenario of ['webhook ingest (events/s)', 'license creation (req/s)'] as const) {
      const pairs = [1, 2].map((round) => ({
        without: rows.find((r) => r.scenario === scenario && r.round === round && r.phase === 'without')!,
        with: rows.find((r) => r.scenario === scenario && r.round === round && r.phase === 'with')!,
      }));
      for (const [i, p] of pairs.entries()) {
        console.log(
          `| ${store} | ${scenario} | ${i + 1} | ${p.without.rate} | ${p.with.rate} | ${pct(p.without.rate, p.with.rate)} | ${p.without.cpuMs.toFixed(2)} | ${p.with.cpuMs.toFixed(2)} | ${pct(p.without.cpuMs, p.with.cpuMs)} | ${p.without.p99} / ${p.with.p99} | ${p.with.notified} | ${p.without.failures + p.with.failures} |`,
        );
      }
      const mean = (k: 'without' | 'with', f: 'rate' | 'cpuMs') => pairs.reduce((n, p) => n + p[k][f], 0) / 2;
      console.log(
        `| ${store} | ${scenario} | both | ${mean('without', 'rate')} | ${mean('with', 'rate')} | **${pct(mean('without', 'rate'), mean('with', 'rate'))}** | ${mean('without', 'cpuMs').toFixed(2)} | ${mean('with', 'cpuMs').toFixed(2)} | **${pct(mean('without', 'cpuMs'), mean('with', 'cpuMs'))}** | | | |`,
      );
    }
  }
}

async function main(): Promise<void> {
  assertBuilt();
  const receiver = await startReceiverProcess();
  try {
    if (wanted('embedded', STORES)) await embedded(receiver);
    if (wanted('mysql', STORES)) await mysql(receiver);
  } finally {
    await receiver.stop();
  }
  report();
}

await main();
