// Counts the database statements, round trips and commits of webhook ingest: one server process on
// a database nobody else uses (BENCH_COUNT_URL, default Galera node 1 at 127.0.0.1:3311), 50
// purchases delivered one after the other, the server's `Questions` and `Com_commit` counters read
// before and after, and the requests it received counted in its general log (turned on for the
// run, to a temporary file: a multi-statement query is one entry there, one round trip). A
// deterministic measure of the round trips per event, unlike throughput on a shared machine.
// Run: `npx tsx http/count-statements.ts` in benchmarks/ after `pnpm build` (BENCH_COUNT_PURCHASES
// changes the 50; BENCH_COUNT_KEEP_LOG=1 keeps the general log and prints its path, to read the statements;
// BENCH_COUNT_KIND=subscription counts subscription purchases instead of one-time ones;
// BENCH_COUNT_IN_FLIGHT=32 delivers that many purchases at once, each its two events in turn, as the
// ingest benchmark does: what units of work join under load, a key e-mail's release above all;
// BENCH_COUNT_CHECKOUT=<another checkout's root, built> counts that build's server instead of this one's).
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { cpuSeconds, databasePidOf } from './cpu.js';
import { cliPath, runCli, startServer } from './processes.js';
import { ingestOne, seedIntegration } from './webhooks.js';

const SERVER = process.env['BENCH_COUNT_URL'] ?? 'mysql://root@127.0.0.1:3311';
const REDIS = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379/0';
const PURCHASES = Number(process.env['BENCH_COUNT_PURCHASES'] ?? 50);
const KIND = process.env['BENCH_COUNT_KIND'] === 'subscription' ? 'subscription' : 'one-time';
const checkout = process.env['BENCH_COUNT_CHECKOUT'];
const cli = checkout ? join(checkout, 'packages/server/bin/svc-licensing.cjs') : cliPath;
const IN_FLIGHT = Math.max(1, Number(process.env['BENCH_COUNT_IN_FLIGHT'] ?? 1));
/** Delivers purchases 1 to PURCHASES of `run`, IN_FLIGHT at a time. */
const deliverAll = async (serverUrl: string, setup: Awaited<ReturnType<typeof seedIntegration>>, run: string) => {
  let next = 1;
  const worker = async () => {
    while (next <= PURCHASES) await ingestOne(serverUrl, setup, run, next++, KIND);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
};
const name = `count_${randomBytes(6).toString('hex')}`;
const url = `${SERVER}/${name}`;
const env = { SVC_MASTER_KEY: randomBytes(32).toString('base64') };
const admin = await createConnection({ uri: SERVER });
const counters = async () => {
  const [rows] = await admin.query("SHOW GLOBAL STATUS WHERE Variable_name IN ('Questions', 'Com_commit')");
  return Object.fromEntries((rows as { Variable_name: string; Value: string }[]).map((r) => [r.Variable_name, Number(r.Value)]));
};
try {
  await runCli(['migrate', '--database', url], env, cli);
  const created = await runCli(['account', 'create', '--name', 'Count', '--owner-email', 'c@count.test', '--service-plan', 'unlimited', '--database', url], env, cli);
  const apiKey = (JSON.parse(created) as { apiKey: string }).apiKey;
  const server = await startServer(['--database', url, '--redis-url', `${REDIS}?prefix=${name}`, '--outbox', join(tmpdir(), name)], env, cli);
  try {
    const setup = await seedIntegration(server.url, apiKey);
    await ingestOne(server.url, setup, 'warm', 0, KIND);
    const logFile = join(tmpdir(), `${name}.general.log`);
    await admin.query('SET GLOBAL general_log_file = ?, GLOBAL general_log = 1', [logFile]);
    const before = await counters();
    await deliverAll(server.url, setup, 'count');
    const after = await counters();
    await admin.query('SET GLOBAL general_log = 0');
    // Requests of the server's connections (this connection's are the counter reads): Execute and Query entries.
    const [self] = await admin.query('SELECT CONNECTION_ID() AS id');
    const selfId = (self as { id: number }[])[0]!.id;
    const requests = readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((line) => {
        const entry = /^(?:\S+\s+\S+)?\s+(\d+) (Execute|Query)\t/.exec(line);
        return entry !== null && Number(entry[1]) !== selfId;
      }).length;
    if (process.env['BENCH_COUNT_KEEP_LOG']) process.stderr.write(`general log kept: ${logFile}\n`);
    else rmSync(logFile, { force: true });
    // Then the same again with the log off, for the CPU time.
    const dbPid = await databasePidOf(SERVER);
    const cpuBefore = { server: cpuSeconds(server.pid), db: dbPid === null ? null : cpuSeconds(dbPid) };
    await deliverAll(server.url, setup, 'cpu');
    const cpuAfter = { server: cpuSeconds(server.pid), db: dbPid === null ? null : cpuSeconds(dbPid) };
    // Each read of the counters is one statement of this connection.
    const statements = (after['Questions']! - before['Questions']! - 1) / (PURCHASES * 2);
    const commits = (after['Com_commit']! - before['Com_commit']!) / (PURCHASES * 2);
    const roundTrips = requests / (PURCHASES * 2);
    process.stdout.write(
      `per event (${KIND} purchases, ${IN_FLIGHT} in flight: customer.created + transaction.completed, averaged): ${statements.toFixed(1)} statements in ${roundTrips.toFixed(1)} round trips, ${commits.toFixed(2)} COMMITs\n`,
    );
    // CPU time per event (the database's includes whatever else it served meanwhile): less
    // sensitive to other load on the machine than throughput, though not immune to it.
    const perEvent = (a: number | null, b: number | null) => (a === null || b === null ? '?' : `${(((b - a) * 1000) / (PURCHASES * 2)).toFixed(2)} ms`);
    process.stdout.write(`CPU per event, ${IN_FLIGHT === 1 ? 'one delivery at a time' : `${IN_FLIGHT} purchases in flight`}: server ${perEvent(cpuBefore.server, cpuAfter.server)}, database ${perEvent(cpuBefore.db, cpuAfter.db)}\n`);
  } finally {
    await server.stop();
  }
} finally {
  await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await admin.end();
}
