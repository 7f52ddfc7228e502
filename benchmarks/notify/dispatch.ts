// Dispatch throughput: `n` license.created notifications are queued in the outbox of a store (the
// dispatcher not running yet), then the dispatcher `serve` runs (startNotifications, its defaults:
// 16 in flight) is started and timed until every notification is recorded as delivered in the
// store (after the receiver process verified it and answered 204); the receiver's count of
// distinct verified deliveries must then be `n`.
import { randomBytes } from 'node:crypto';
import { createLicenseEngine, createSecretBox } from '@svc-licensing/license-engine';
import type { Store } from '@svc-licensing/license-engine';
import { parseNotifyAllowance, startNotifications } from '../../packages/server/src/notifications/index.js';
import { cpuSeconds } from '../http/cpu.js';
import type { ReceiverProcess } from './receiver-process.js';

export interface DispatchResult {
  deliveries: number;
  /** Seconds from the dispatcher's start until the last delivery is recorded. */
  seconds: number;
  deliveriesPerSecond: number;
  /** Queueing: license creations per second (each one unit writing the license, its event and its delivery). */
  queuedPerSecond: number;
  /** Failed attempts the dispatcher logged, deliveries the receiver refused, and second receptions. */
  failedAttempts: number;
  refused: number;
  duplicates: number;
  /** Cores used while dispatching: this process (dispatcher and, for the embedded store, the store), the receiver, the database. */
  cpu: string;
  /** CPU microseconds per delivery of this process (the dispatcher, and the embedded store), and of the database. */
  dispatcherUs: number;
  databaseUs: number | null;
  /** License creation without and with the subscribed endpoint (dispatcher not running): rate and CPU µs per creation (this process and the database). */
  creation: { without: { perSecond: number; cpuUs: number }; with: { perSecond: number; cpuUs: number } };
}

const allowance = (() => {
  const parsed = parseNotifyAllowance(['127.0.0.1']);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.allowance;
})();

/** Runs `work` `n` times, `parallel` at a time. */
async function times(n: number, parallel: number, work: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < n) await work(next++);
  }));
}

/** Optional hooks of {@link measureDispatch}: `onDispatch` runs just before the dispatcher starts and just after the last delivery is recorded (profile.ts profiles that window). */
export interface DispatchHooks {
  onDispatch?: (phase: 'start' | 'end') => Promise<void> | void;
}

export async function measureDispatch(store: Store, receiver: ReceiverProcess, n: number, databasePids: number[], hooks: DispatchHooks = {}): Promise<DispatchResult> {
  let wake = () => {};
  const engine = createLicenseEngine({ store, secrets: createSecretBox(new Uint8Array(randomBytes(32))), onNotificationsQueued: () => wake() });
  const { account } = await engine.createAccount({ name: 'Bench', ownerEmail: 'bench@bench.test', servicePlan: 'unlimited' });
  const endpoint = await engine.createWebhookEndpoint(account.id, { url: `${receiver.url}/hooks`, events: ['license.created'] });
  await receiver.setSecrets([endpoint.secret]);
  await receiver.reset();
  const product = await engine.createProduct(account.id, { name: 'Bench Dispatch', keyPrefix: 'BD-' });
  const plan = await engine.createPlan(account.id, product.id, { code: 'lifetime', kind: 'perpetual' });

  // Queueing, and what the outbox costs a unit: license creations (16 at a time) without and with
  // the endpoint subscribed, alternating (without, with, without, with; n/2 each), the dispatcher
  // not running. The `with` phases queue the n deliveries.
  const dbCpu = () => databasePids.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0);
  const units = { without: { seconds: 0, cpu: 0, count: 0 }, with: { seconds: 0, cpu: 0, count: 0 } };
  let created = 0;
  for (const phase of ['without', 'with', 'without', 'with'] as const) {
    await engine.updateWebhookEndpoint(account.id, endpoint.id, { enabled: phase === 'with' });
    const count = phase === 'with' && units.with.count > 0 ? Math.floor(n / 2) : Math.ceil(n / 2);
    const t = performance.now();
    const c = { self: process.cpuUsage(), db: dbCpu() };
    const first = created;
    created += count;
    await times(count, 16, (i) => engine.createLicense(account.id, { plan: plan.id, email: `buyer-${first + i}@bench.test`, sendEmail: false }));
    const self = process.cpuUsage(c.self);
    units[phase].seconds += (performance.now() - t) / 1000;
    units[phase].cpu += (self.user + self.system) / 1e6 + (dbCpu() - c.db);
    units[phase].count += count;
  }
  const queuedPerSecond = Math.round(units.with.count / units.with.seconds);
  const creation = (k: 'without' | 'with') => ({ perSecond: Math.round(units[k].count / units[k].seconds), cpuUs: Math.round((1e6 * units[k].cpu) / units[k].count) });

  let failedAttempts = 0;
  await hooks.onDispatch?.('start');
  const before = { self: process.cpuUsage(), receiver: cpuSeconds(receiver.pid) ?? 0, db: dbCpu() };
  const started = performance.now();
  // Done when the n-th delivery is recorded as delivered: counted in this process, so that no
  // polling of the receiver runs beside the dispatcher; the receiver's count is checked after.
  let delivered = 0;
  let done = () => {};
  const allDelivered = new Promise<void>((resolve) => (done = resolve));
  const counting = {
    claimDueDeliveries: engine.claimDueDeliveries,
    disabledEndpointNotice: engine.disabledEndpointNotice,
    recordDeliveryAttempts: async (inputs: Parameters<typeof engine.recordDeliveryAttempts>[0]) => {
      const recorded = await engine.recordDeliveryAttempts(inputs);
      for (const [i, r] of recorded.entries()) if (r.recorded && inputs[i]!.outcome.kind === 'delivered' && ++delivered === n) done();
      return recorded;
    },
  };
  const notifications = startNotifications({
    engine: counting, allowance, publicBaseUrl: 'http://127.0.0.1',
    // BENCH_NOTIFY_CONCURRENCY: sends in flight (the dispatcher's default, 16, when unset)
    ...(process.env['BENCH_NOTIFY_CONCURRENCY'] ? { concurrency: Number(process.env['BENCH_NOTIFY_CONCURRENCY']) } : {}),
    log: (entry) => {
      if (entry.msg === 'notification_failed') failedAttempts++;
      else process.stderr.write(`dispatcher: ${JSON.stringify(entry)}\n`);
    },
  });
  wake = notifications.wake;
  await allDelivered;
  const seconds = (performance.now() - started) / 1000;
  await hooks.onDispatch?.('end');
  await notifications.stop();
  const self = process.cpuUsage(before.self);
  const count = await receiver.count();
  if (count.unique !== n) throw new Error(`the receiver verified ${count.unique} distinct deliveries, not ${n}`);
  const share = (used: number) => (used / seconds).toFixed(2);
  const cpu = [
    `bench process ${share((self.user + self.system) / 1e6)}`,
    `receiver ${share((cpuSeconds(receiver.pid) ?? 0) - before.receiver)}`,
    databasePids.length ? `db ${share(dbCpu() - before.db)}` : null,
  ].filter(Boolean).join(', ');
  return {
    deliveries: n, seconds: Number(seconds.toFixed(2)), deliveriesPerSecond: Math.round(n / seconds), queuedPerSecond,
    failedAttempts, refused: count.refused, duplicates: count.duplicates, cpu,
    dispatcherUs: Math.round((self.user + self.system) / n),
    databaseUs: databasePids.length ? Math.round((1e6 * (dbCpu() - before.db)) / n) : null,
    creation: { without: creation('without'), with: creation('with') },
  };
}
