// Webhook ingest load: signed provider_a deliveries, each purchase a new customer
// (`customer.created`, then `transaction.completed`: for a mapped one-time price, which creates a
// perpetual license and e-mails its key, or, for subscription purchases, with a `subscription_id`
// and a billing period for a price mapped to a subscription plan, which creates the subscription's
// license and e-mails its key). `connections` purchases run at once, spread over the servers round
// robin; every non-200 answer counts as a failure. Then every event already processed is delivered
// again (de-duplication path).
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { signProviderA } from '@svc-licensing/provider-webhooks';
import { fixtureJson } from '../../fixtures/index.js';
import { vendor } from './vendor.js';

const LIFETIME_PRICE = 'pri_01hv0w3gq5t6wkq9r2dq7y8m1b';
/** The subscription fixture's price (`transaction.completed.subscription`), mapped to a monthly plan. */
const MONTHLY_PRICE = 'pri_01hv0vax6rv18t4tamj848ne4d';

/** What a purchase buys: a perpetual license (one-time price) or a subscription. */
export type PurchaseKind = 'one-time' | 'subscription';
const SECRET = 'bench_webhook_secret';

export interface IngestSetup {
  /** The integration's webhook path, `/v1/webhooks/provider_a/int_...`. */
  path: string;
  /** The product whose licenses the purchases create. */
  productId: string;
}

export interface IngestResult {
  eventsPerSecond: number;
  p50: number;
  p99: number;
  failures: number;
  total: number;
  /** Status codes (and socket errors) of the failures, with counts. */
  failureKinds: Record<string, number>;
  /** Purchases whose `transaction.completed` was answered 200: each must have its license. */
  purchases: number;
}

/** How many licenses the product has (the vendor API's list, page by page). */
export async function countLicenses(url: string, apiKey: string, productId: string): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const page: { data: unknown[]; nextCursor: string | null } = await vendor(url, apiKey, 'GET', `/licenses?product=${productId}${cursor ? `&cursor=${cursor}` : ''}`);
    count += page.data.length;
    cursor = page.nextCursor;
  } while (cursor);
  return count;
}

/**
 * A product with a perpetual and a subscription plan and a provider_a integration mapping the
 * lifetime price to the first and the monthly price to the second.
 */
export async function seedIntegration(url: string, apiKey: string): Promise<IngestSetup> {
  const product = await vendor(url, apiKey, 'POST', '/products', { name: 'Bench Hooks', keyPrefix: 'BH-' });
  await vendor(url, apiKey, 'POST', `/products/${product.id}/plans`, { code: 'lifetime', kind: 'perpetual' });
  await vendor(url, apiKey, 'POST', `/products/${product.id}/plans`, { code: 'monthly', kind: 'subscription' });
  const integration = await vendor(url, apiKey, 'POST', '/integrations', {
    provider: 'provider_a',
    product: product.id,
    webhookSecret: SECRET,
    priceMap: { [LIFETIME_PRICE]: 'lifetime', [MONTHLY_PRICE]: 'monthly' },
  });
  return { path: `/v1/webhooks/provider_a/${integration.id}`, productId: product.id };
}

const customerTemplate = fixtureJson('provider_a', 'customer.created');
const transactionTemplate = fixtureJson('provider_a', 'transaction.completed');
const subscriptionTemplate = fixtureJson('provider_a', 'transaction.completed.subscription');
const MONTH_MS = 30 * 86_400_000;

/** The two event bodies of purchase `n` of a run (`run` keeps event IDs unique across runs). */
export function purchaseBodies(run: string, n: number, kind: PurchaseKind = 'one-time'): [string, string] {
  const customerId = `ctm_${run}_${n}`;
  const now = Date.now();
  const at = new Date(now).toISOString();
  const customer = structuredClone(customerTemplate);
  customer.event_id = `evt_${run}_${n}_c`;
  customer.occurred_at = at;
  customer.data.id = customerId;
  customer.data.email = `buyer-${run}-${n}@bench.test`;
  const transaction = structuredClone(kind === 'subscription' ? subscriptionTemplate : transactionTemplate);
  transaction.event_id = `evt_${run}_${n}_t`;
  transaction.occurred_at = at;
  transaction.data.id = `txn_${run}_${n}`;
  transaction.data.customer_id = customerId;
  if (kind === 'subscription') {
    transaction.data.subscription_id = `sub_${run}_${n}`;
    transaction.data.billing_period = { starts_at: at, ends_at: new Date(now + MONTH_MS).toISOString() };
  }
  return [JSON.stringify(customer), JSON.stringify(transaction)];
}

/**
 * Keep-alive agents for the load. A `timeout` makes Node's agent honour the server's `Keep-Alive:
 * timeout=5` hint (it then drops a free socket after 4 s); without one it keeps free sockets for
 * ever, and a socket idle for the server's 6 s (5 s announced, Node's 1 s margin) is reused just as
 * the server closes it: the request is reset (`ECONNRESET`), with no answer. On a loaded machine the
 * client sees the server's FIN late, so this happened about once a run.
 */
export const loadAgent = (maxSockets: number) => new Agent({ keepAlive: true, maxSockets, timeout: 60_000 });

/** The status of the answer, or the socket error's code when there was none (`ECONNRESET`). */
function post(agent: Agent, url: URL, path: string, body: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'Provider-A-Signature': signProviderA(body, SECRET) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end(body);
  });
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]! : 0);

/**
 * Runs purchases for `seconds` with `connections` in flight (each one purchase at a time, its two
 * events in order), then re-delivers `redeliver` of the processed events. Returns the new-event
 * and the duplicate results.
 */
export async function ingest(
  urls: string[],
  setup: IngestSetup,
  options: { connections: number; seconds: number; kind?: PurchaseKind; onFreshDone?: () => void },
): Promise<{ fresh: IngestResult; duplicates: IngestResult }> {
  const run = randomBytes(4).toString('hex');
  const agents = urls.map(() => loadAgent(options.connections));
  const targets = urls.map((u) => new URL(u));
  const delivered: { target: number; body: string }[] = [];

  const drive = async (next: (worker: number) => Promise<(number | string)[] | null>): Promise<IngestResult> => {
    const latencies: number[] = [];
    const failureKinds: Record<string, number> = {};
    let events = 0;
    let purchases = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: options.connections }, async (_, worker) => {
        for (;;) {
          const statuses = await next(worker);
          if (statuses === null) return;
          events += statuses.length;
          if (statuses.length === 2 && statuses[1] === 200) purchases++;
          for (const s of statuses) if (s !== 200) failureKinds[String(s)] = (failureKinds[String(s)] ?? 0) + 1;
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    void latencies;
    const failures = Object.values(failureKinds).reduce((a, b) => a + b, 0);
    return { eventsPerSecond: Math.round(events / elapsed), p50: 0, p99: 0, failures, total: events, failureKinds, purchases };
  };

  const timed = async (latencies: number[], target: number, path: string, body: string) => {
    const t = performance.now();
    const status = await post(agents[target]!, targets[target]!, path, body);
    latencies.push(performance.now() - t);
    return status;
  };

  let n = 0;
  const freshLatencies: number[] = [];
  const deadline = performance.now() + options.seconds * 1000;
  const fresh = await drive(async (worker) => {
    if (performance.now() >= deadline) return null;
    const i = n++;
    const target = (worker + i) % urls.length;
    const [customer, transaction] = purchaseBodies(run, i, options.kind);
    const a = await timed(freshLatencies, target, setup.path, customer);
    const b = await timed(freshLatencies, (target + 1) % urls.length, setup.path, transaction);
    delivered.push({ target, body: customer }, { target: (target + 1) % urls.length, body: transaction });
    return [a, b];
  });
  options.onFreshDone?.();
  freshLatencies.sort((x, y) => x - y);
  fresh.p50 = Math.round(percentile(freshLatencies, 50));
  fresh.p99 = Math.round(percentile(freshLatencies, 99));

  let d = 0;
  const dupLatencies: number[] = [];
  const duplicates = await drive(async () => {
    const item = delivered[d++];
    if (!item) return null;
    return [await timed(dupLatencies, (item.target + 1) % urls.length, setup.path, item.body)];
  });
  dupLatencies.sort((x, y) => x - y);
  duplicates.p50 = Math.round(percentile(dupLatencies, 50));
  duplicates.p99 = Math.round(percentile(dupLatencies, 99));
  for (const a of agents) a.destroy();
  return { fresh, duplicates };
}

/** Delivers purchase `n` of `run` (its two events, in order) to one server; rejects on a non-200 answer. */
export async function ingestOne(url: string, setup: IngestSetup, run: string, n: number, kind: PurchaseKind = 'one-time'): Promise<void> {
  const agent = new Agent({ keepAlive: false });
  try {
    for (const body of purchaseBodies(run, n, kind)) {
      const status = await post(agent, new URL(url), setup.path, body);
      if (status !== 200) throw new Error(`delivery answered ${status}`);
    }
  } finally {
    agent.destroy();
  }
}
