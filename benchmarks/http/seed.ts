// Test data for the HTTP benchmark: a product, a plan and licenses created through the vendor
// API (so every store gets them the same way), each activated on one machine; and, for the list
// benchmark, a million licenses bulk-loaded straight into MariaDB.
import { randomBytes } from 'node:crypto';
import { createIdGenerator } from '@svc-licensing/license-engine';
import { createConnection } from 'mysql2/promise';
import { tables } from '../../packages/server/src/stores/mysql/schema.js';
import { vendor } from './vendor.js';

export interface Seeded {
  productId: string;
  planId: string;
  /** One `{ product, key, fingerprint }` body per license, each fingerprint activated. */
  machines: { product: string; key: string; fingerprint: string }[];
}

const fingerprint = () => randomBytes(32).toString('hex');

async function client(url: string, action: string, body: unknown): Promise<any> {
  const res = await fetch(`${url}/v1/licenses/${action}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as any;
  if (res.status >= 300) throw new Error(`${action}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** `count` perpetual licenses allowing many machines, each activated once. */
export async function seedLicenses(url: string, apiKey: string, count: number): Promise<Seeded> {
  const product = await vendor(url, apiKey, 'POST', '/products', { name: 'Bench App', keyPrefix: 'BN-' });
  const plan = await vendor(url, apiKey, 'POST', `/products/${product.id}/plans`, { code: 'pro', kind: 'perpetual', maxActivations: 100_000 });
  const machines: Seeded['machines'] = [];
  for (let start = 0; start < count; start += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, count - start) }, async (_, j) => {
        const license = await vendor(url, apiKey, 'POST', '/licenses', { plan: plan.id, email: `customer${start + j}@bench.test` });
        const machine = { product: product.id as string, key: license.key as string, fingerprint: fingerprint() };
        await client(url, 'activate', machine);
        return machine;
      }),
    );
    machines.push(...batch);
  }
  return { productId: product.id, planId: plan.id, machines };
}

/**
 * `count` licenses to revoke, spread round robin over `products` products (a plan each), none
 * activated (a revoke lists the license, not its machines). The IDs come back interleaved, so
 * consecutive requests revoke licenses of different products; with `products` 1 every revoke
 * takes the same product's row lock.
 */
export async function seedRevocable(url: string, apiKey: string, count: number, products: number): Promise<string[]> {
  const plans: string[] = [];
  for (let p = 0; p < products; p++) {
    const product = await vendor(url, apiKey, 'POST', '/products', { name: `Revoke Bench ${p}`, keyPrefix: 'RV-' });
    plans.push((await vendor(url, apiKey, 'POST', `/products/${product.id}/plans`, { code: 'pro', kind: 'perpetual', maxActivations: 10 })).id);
  }
  const ids: string[] = new Array(count);
  for (let start = 0; start < count; start += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, count - start) }, async (_, j) => {
        const i = start + j;
        ids[i] = (await vendor(url, apiKey, 'POST', '/licenses', { plan: plans[i % products], email: `revoke${i}@bench.test` })).id;
      }),
    );
  }
  return ids;
}

/** A body for activating a new machine on one of the seeded licenses (round robin). */
export function newMachines(seeded: Seeded): () => string {
  let i = 0;
  return () => {
    const m = seeded.machines[i++ % seeded.machines.length]!;
    return JSON.stringify({ product: m.product, key: m.key, fingerprint: fingerprint() });
  };
}

/** A body validating one of the activated machines (round robin). */
export function knownMachines(seeded: Seeded): () => string {
  const bodies = seeded.machines.map((m) => JSON.stringify(m));
  let i = 0;
  return () => bodies[i++ % bodies.length]!;
}

/**
 * Bulk-loads `count` more licenses of the seeded product into the database, copies of a license
 * the API created (same account, plan and customer) with their own IDs and key hashes, oldest
 * first. Returns the IDs in ascending order.
 */
export async function bulkLoadLicenses(databaseUrl: string, count: number, onProgress: (done: number) => void): Promise<string[]> {
  const db = await createConnection({ uri: databaseUrl });
  try {
    const [rows] = await db.query('SELECT `doc` FROM `licenses` ORDER BY `id` LIMIT 1');
    const template = JSON.parse((rows as { doc: string }[])[0]!.doc) as Record<string, unknown>;
    let tick = Date.parse('2020-01-01T00:00:00Z');
    const ids = createIdGenerator({ clock: { now: () => tick++ }, random: { bytes: (n: number) => new Uint8Array(randomBytes(n)) } });
    const map = tables.licenses;
    const columns = ['id', 'doc', ...map.columns.values()].map((c) => `\`${c}\``).join(', ');
    const all: string[] = [];
    const BATCH = 2000;
    for (let done = 0; done < count; done += BATCH) {
      const values: unknown[] = [];
      const n = Math.min(BATCH, count - done);
      for (let i = 0; i < n; i++) {
        const record = { ...template, id: ids.next('lic'), keyHash: randomBytes(32).toString('hex'), customerName: `Bulk Customer ${done + i}` } as Record<string, unknown>;
        all.push(record.id as string);
        values.push(record.id, JSON.stringify(record), ...[...map.columns.keys()].map((f) => (record[f] ?? null) as unknown));
      }
      const row = `(${Array(2 + map.columns.size).fill('?').join(', ')})`;
      await db.query(`INSERT INTO \`licenses\` (${columns}) VALUES ${Array(n).fill(row).join(', ')}`, values);
      onProgress(done + n);
    }
    return all;
  } finally {
    await db.end();
  }
}
