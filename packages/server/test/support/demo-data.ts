/**
 * A vendor's account as it looks after a few weeks, made through the public API only (the vendor
 * API with the account's key, the client API for the machines): two products, three plans, eight
 * customers' licenses in every common status, machines activated, a signing-key rotation under way.
 * The README screenshots are taken of it.
 */
import { createHash } from 'node:crypto';
import type { WebServer } from './app-server.js';

export interface DemoAccount {
  editor: string;
  sync: string;
  /** License IDs by the customer's first name (`ada`, `kim`, ...). */
  licenses: Record<string, string>;
}

async function ok<T = any>(answer: Promise<{ status: number; body: T }>, what: string): Promise<T> {
  const { status, body } = await answer;
  if (status >= 300) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`);
  return body;
}

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Fills the server's account (see the file's comment). */
export async function seedDemoAccount(server: WebServer): Promise<DemoAccount> {
  const api = server.api;
  const editor = (await ok(api('POST', '/products', { name: 'Acme Editor', keyPrefix: 'ACME-', graceDays: 7, offlineDays: 14 }), 'product')).id as string;
  const sync = (await ok(api('POST', '/products', { name: 'Acme Sync', keyPrefix: 'SYNC-', graceDays: 3, offlineDays: 7 }), 'product')).id as string;
  const pro = (await ok(api('POST', `/products/${editor}/plans`, { code: 'pro', name: 'Pro', kind: 'perpetual', maxActivations: 2, entitlements: ['export', 'sync'], maxMajor: 3 }), 'plan')).id;
  const team = (await ok(api('POST', `/products/${editor}/plans`, { code: 'team-annual', name: 'Team', kind: 'subscription', maxActivations: 3, entitlements: ['export', 'sync', 'admin'] }), 'plan')).id;
  const monthly = (await ok(api('POST', `/products/${sync}/plans`, { code: 'monthly', name: 'Monthly', kind: 'subscription', maxActivations: 1 }), 'plan')).id;

  const customers: [string, string, string | null, string, Record<string, unknown>][] = [
    ['edsger', 'edsger@dijkstra.example', 'Edsger Dijkstra', monthly, { paidUntil: inDays(30) }],
    ['alan', 'alan@bletchley.example', 'Alan Turing', team, { paidUntil: inDays(200), seats: 2 }],
    ['margaret', 'margaret@apollo.example', 'Margaret Hamilton', pro, {}],
    ['kim', 'kim@studio.example', null, pro, {}],
    ['linus', 'linus@kernel.example', 'Linus Larsson', monthly, { paidUntil: inDays(12) }],
    ['grace', 'grace@cobol.example', 'Grace Hopper', team, { paidUntil: inDays(340), seats: 3 }],
    ['katherine', 'katherine@orbit.example', 'Katherine Johnson', pro, {}],
    ['ada', 'ada@analytical.example', 'Ada Lovelace', pro, {}],
  ];
  const licenses: Record<string, string> = {};
  const keys: Record<string, string> = {};
  for (const [first, email, name, plan, extra] of customers) {
    const license = await ok(api('POST', '/licenses', { plan, email, ...(name ? { name } : {}), ...extra }), `license of ${email}`);
    licenses[first] = license.id;
    keys[first] = license.key;
  }

  const activate = async (first: string, product: string, machine: string, platform: string, appVersion: string) => {
    const fingerprint = createHash('sha256').update(`svc:${product}:${first}-${machine}`).digest('hex');
    const res = await fetch(`${server.url}/v1/licenses/activate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ product, key: keys[first], fingerprint, name: machine, platform, appVersion }),
    });
    if (res.status !== 200 && res.status !== 201) throw new Error(`activation of ${machine}: ${res.status} ${await res.text()}`);
  };
  await activate('ada', editor, 'Studio laptop', 'macos', '2.4.1');
  await activate('ada', editor, 'Office desktop', 'windows', '2.4.0');
  await activate('grace', editor, 'Build server', 'linux', '2.4.1');
  await activate('katherine', editor, 'Workstation', 'linux', '2.3.9');
  await activate('linus', sync, 'Laptop', 'linux', '1.2.0');
  await activate('kim', editor, 'Kim’s laptop', 'macos', '2.4.1');

  await ok(api('POST', `/licenses/${licenses.margaret}/suspend`), 'suspend');
  await ok(api('POST', `/licenses/${licenses.alan}/revoke`), 'revoke');
  // A rotation under way: k2 is published as pending, k1 still signs.
  await ok(api('POST', `/products/${editor}/keys`), 'pending key');
  return { editor, sync, licenses };
}
