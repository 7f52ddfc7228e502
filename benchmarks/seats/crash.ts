// Floating seats (issue 27): a crashed client's seat is free for check-out at most leaseSeconds + 5 s
// after its last successful call, with no sweeper (none is built). A child process checks out the
// only seat of a floating license (leaseSeconds 120, the shortest) and heartbeats; it is killed with
// SIGKILL right after a successful heartbeat; another machine then asks for the seat once a second
// until it gets it. Reports the time from the dead client's last successful call to the first
// successful check-out, against the bound (and the lease itself, before which the seat must stay held).
//
//   npx -y pnpm@10.34.9 --filter @svc-licensing/benchmarks bench:seats-crash [embedded|mysql]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { runCli, startServer, type Running } from '../http/processes.js';
import { MYSQL, databaseUrl } from '../http/database-url.js';

const LEASE = 120;

// The client: activate, then validate every 2 s (more often than it needs), printing each success's time.
const CLIENT = `
const [url, body] = process.argv.slice(1);
const call = async (route) => { const r = await fetch(url + '/v1/licenses/' + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body }); if (r.status !== 200) throw new Error(route + ' ' + r.status + ' ' + await r.text()); console.log(Date.now()); };
(async () => { await call('activate'); for (;;) { await new Promise((r) => setTimeout(r, 2000)); await call('validate'); } })().catch((e) => { console.error(String(e)); process.exit(1); });
`;

async function measure(server: Running, apiKey: string, store: string): Promise<void> {
  const vendor = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${server.url}/v1${path}`, { method, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await r.json()) as any;
    if (r.status >= 300) throw new Error(`${path}: ${r.status} ${JSON.stringify(json)}`);
    return json;
  };
  const product = await vendor('POST', '/products', { name: 'Crash App', keyPrefix: 'CR-' });
  const plan = await vendor('POST', `/products/${product.id}/plans`, { code: 'team', kind: 'perpetual', seatMode: 'floating', maxActivations: 1, leaseSeconds: LEASE });
  const license = await vendor('POST', '/licenses', { plan: plan.id, email: 'crash@bench.test' });
  const body = (fp: string) => JSON.stringify({ product: product.id, key: license.key, fingerprint: fp });
  const child = spawn(process.execPath, ['-e', CLIENT, server.url, body(randomBytes(32).toString('hex'))], { stdio: ['ignore', 'pipe', 'inherit'] });
  let last = 0;
  let calls = 0;
  await new Promise<void>((resolve) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      for (const line of chunk.split('\n').filter(Boolean)) {
        last = Number(line);
        // Killed right after its third successful call (activate and two heartbeats).
        if (++calls === 3) {
          child.kill('SIGKILL');
          resolve();
        }
      }
    });
  });
  await new Promise((r) => child.once('exit', r));
  const other = body(randomBytes(32).toString('hex'));
  let refused = 0;
  for (;;) {
    const r = await fetch(`${server.url}/v1/licenses/activate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: other });
    if (r.status === 200) break;
    if (r.status !== 409) throw new Error(`activate: ${r.status} ${await r.text()}`);
    refused++;
    await new Promise((res) => setTimeout(res, 1000));
  }
  const freedAfter = (Date.now() - last) / 1000;
  console.log(
    `| ${store} | ${LEASE} s | ${freedAfter.toFixed(1)} s | ${LEASE + 5} s | ${freedAfter <= LEASE + 5 + 1 ? 'met' : 'NOT met'} | ${refused} | ${loadavg().map((l) => l.toFixed(1)).join(' ')} |`,
  );
}

const which = process.argv[2] ?? 'embedded';
console.log('| store | leaseSeconds | seat free after the last successful call (polled each 1 s) | bound | met | refused check-outs before | load average |');
console.log('|---|---|---|---|---|---|---|');
if (which === 'embedded') {
  const dir = await mkdtemp(join(tmpdir(), 'svc-crash-'));
  const args = ['--data', join(dir, 'data')];
  try {
    const apiKey = (JSON.parse(await runCli(['account', 'create', '--name', 'Crash', '--owner-email', 'c@bench.test', '--service-plan', 'unlimited', ...args], {})) as { apiKey: string }).apiKey;
    const server = await startServer([...args, '--outbox', join(dir, 'outbox')], {});
    try {
      await measure(server, apiKey, 'embedded');
    } finally {
      await server.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
} else {
  const name = `crash_${randomBytes(6).toString('hex')}`;
  const env = { SVC_MASTER_KEY: randomBytes(32).toString('base64') };
  const admin = await createConnection({ uri: MYSQL });
  try {
    await runCli(['migrate', '--database', databaseUrl(MYSQL, name)], env);
    const apiKey = (JSON.parse(await runCli(['account', 'create', '--name', 'Crash', '--owner-email', 'c@bench.test', '--service-plan', 'unlimited', '--database', databaseUrl(MYSQL, name)], env)) as { apiKey: string }).apiKey;
    const server = await startServer(['--database', databaseUrl(MYSQL, name), '--outbox', join(tmpdir(), `svc-crash-outbox-${process.pid}`)], env);
    try {
      await measure(server, apiKey, 'MariaDB');
    } finally {
      await server.stop();
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await admin.end();
  }
}
