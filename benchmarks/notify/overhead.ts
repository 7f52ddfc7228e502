// What one subscribed endpoint costs a `serve` process: webhook ingest (signed provider_a
// purchases, two events each) and license creation (POST /v1/licenses) measured without any
// endpoint, then with one endpoint subscribed to every event (the receiver process verifying each
// delivery), twice in alternation (without, with, without, with) in one run, so drift of the shared
// machine falls on both sides. The dispatcher runs in the same server process, so its sending is
// part of the cost. Two measures per phase: the rate (requests or events per second while it runs)
// and the CPU per operation: CPU seconds of the server process (and of MariaDB) from the phase's
// start until its notifications are all out (the receiver quiet for a second), divided by the
// requests served. On a machine shared with other jobs the rate moves with their load; the CPU per
// operation much less. Before each phase the receiver must have been quiet for a second.
import { ingest, seedIntegration } from '../http/webhooks.js';
import type { IngestSetup } from '../http/webhooks.js';
import { load } from '../http/load.js';
import type { Running } from '../http/processes.js';
import { cpuSeconds } from '../http/cpu.js';
import type { ReceiverProcess } from './receiver-process.js';
import { vendor } from '../http/vendor.js';

export interface OverheadRow {
  scenario: 'webhook ingest (events/s)' | 'license creation (req/s)';
  phase: 'without' | 'with';
  round: number;
  rate: number;
  /** CPU milliseconds per request served (server, plus database when given), its notifications included. */
  cpuMs: number;
  p99: number;
  failures: number;
  /** Notifications the receiver verified during the phase (and shortly after). */
  notified: number;
}

export async function measureOverhead(
  server: Running, apiKey: string, receiver: ReceiverProcess, options: { seconds: number; connections: number; databasePids: number[] },
): Promise<OverheadRow[]> {
  const rows: OverheadRow[] = [];
  const cpu = () => (cpuSeconds(server.pid) ?? 0) + options.databasePids.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0);
  const setup: IngestSetup = await seedIntegration(server.url, apiKey);
  const plans = (await vendor(server.url, apiKey, 'GET', `/products/${setup.productId}/plans`)).data as { id: string; code: string }[];
  const lifetime = plans.find((p) => p.code === 'lifetime')!.id;
  let n = 0;
  const createLicense = {
    method: 'POST' as const, path: '/v1/licenses', headers: { authorization: `Bearer ${apiKey}` },
    body: () => JSON.stringify({ plan: lifetime, email: `created-${n++}@bench.test`, sendEmail: false }),
  };
  // Warm-up of both paths (JIT, pools), without an endpoint.
  await ingest([server.url], setup, { connections: options.connections, seconds: 2 });
  await load([server.url], createLicense, { connections: options.connections, seconds: 2 });

  let endpointId: string | null = null;
  for (let round = 1; round <= 2; round++) {
    for (const phase of ['without', 'with'] as const) {
      if (phase === 'with') {
        const endpoint = await vendor(server.url, apiKey, 'POST', '/webhook-endpoints', { url: `${receiver.url}/hooks`, description: 'benchmark' });
        endpointId = endpoint.id;
        await receiver.setSecrets([endpoint.secret]);
      } else if (endpointId !== null) {
        await vendor(server.url, apiKey, 'DELETE', `/webhook-endpoints/${endpointId}`);
        endpointId = null;
      }
      await receiver.waitForQuiet(1000);
      const before = (await receiver.count()).verified;
      let cpuBefore = cpu();
      const { fresh, duplicates } = await ingest([server.url], setup, { connections: options.connections, seconds: options.seconds });
      const afterIngest = (await receiver.waitForQuiet(1000)).verified;
      const ingestCpu = cpu() - cpuBefore;
      rows.push({
        scenario: 'webhook ingest (events/s)', phase, round, rate: fresh.eventsPerSecond, cpuMs: (1000 * ingestCpu) / (fresh.total + duplicates.total),
        p99: fresh.p99, failures: fresh.failures + duplicates.failures, notified: afterIngest - before,
      });
      cpuBefore = cpu();
      const created = await load([server.url], createLicense, { connections: options.connections, seconds: options.seconds });
      const afterCreate = (await receiver.waitForQuiet(1000)).verified;
      rows.push({
        scenario: 'license creation (req/s)', phase, round, rate: created.requestsPerSecond, cpuMs: (1000 * (cpu() - cpuBefore)) / created.total,
        p99: created.p99, failures: created.failures, notified: afterCreate - afterIngest,
      });
      process.stderr.write(`${new Date().toISOString().slice(11, 19)} round ${round} ${phase}: ingest ${fresh.eventsPerSecond} events/s, create ${created.requestsPerSecond} req/s, notified ${afterCreate - before}\n`);
    }
  }
  return rows;
}
