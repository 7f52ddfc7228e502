/**
 * The payment suites' vendor on the matrix harness: one account with a product, plans and a
 * provider_a and a provider_b integration mapping the fixtures' prices, webhooks signed as the
 * providers sign them, and a real SMTP server receiving the key e-mails. The app, store and clock
 * are the harness's ({@link createHarness}), so these suites run on the embedded store and MariaDB.
 */
import { type ServicePlanTable } from '@svc-licensing/license-engine';
import { signProviderA, signProviderB } from '@svc-licensing/provider-webhooks';
import type { RequestLogger } from '../../src/index.js';
import { fixtureJson, readFixture } from '../../../../fixtures/index.js';
import { afterTest, createHarness, type Answer, type Harness, type Setup } from './harness.js';
import { startSmtpCapture, type SmtpCapture } from './smtp-capture.js';
import type { TestStoreOptions } from './stores.js';

export type { Answer, Setup } from './harness.js';
export type Provider = 'provider_a' | 'provider_b';

/** Prices of the provider_a fixtures and variants of the provider_b fixtures. */
export const PRICES = {
  a: { pro: 'pri_01hv0vax6rv18t4tamj848ne4d', lifetime: 'pri_01hv0w3gq5t6wkq9r2dq7y8m1b', team: 'pri_team_yearly' },
  b: { pro: '418830', lifetime: '418823' },
} as const;
export const SECRET_A = 'pdl_ntfset_test_secret_a';
export const SECRET_B = 'ls_test_secret_b';
export const PROVIDER_A_API_KEY = 'pdl_apikey_read_customers';

export interface World {
  clock: Harness['clock'];
  /** The engine of the app now serving. */
  readonly engine: Harness['engine'];
  /** The harness under the world (store, restart, log lines). */
  harness: Harness;
  smtp: SmtpCapture;
  accountId: string;
  productId: string;
  integrationA: string;
  integrationB: string;
  /** Vendor API call with the world's account key; `path` after `/v1`. */
  api<T = any>(method: string, path: string, body?: unknown): Promise<Answer<T>>;
  client<T = any>(action: 'activate' | 'validate' | 'deactivate', body: unknown): Promise<Answer<T>>;
  /**
   * Signs `body` (a fixture name, or a JSON object/string) as the provider would and POSTs it to the
   * receiver. `signature: null` sends no signature header; `secret` signs with another secret;
   * `peer` posts it to the peer server (`WorldOptions.peer`).
   */
  deliver<T = any>(
    provider: Provider,
    body: string | Record<string, unknown>,
    options?: { secret?: string; signature?: string | null; integrationId?: string; path?: string; peer?: boolean },
  ): Promise<Answer<T>>;
  /** Audit events of the account, oldest first. */
  events(type?: string): Promise<{ type: string; license: string | null; data: Record<string, unknown> }[]>;
  /** The account's licenses, oldest first. */
  licenses(): Promise<any[]>;
  /** The listening server's address (`node-server` mode), else null. */
  serverUrl: string | null;
}

export interface WorldOptions {
  /** Service plan of the vendor account (default `unlimited`). */
  servicePlan?: string;
  servicePlans?: ServicePlanTable;
  /** Base URL of the provider_a customer API; without it no lookup is made. */
  providerAApiUrl?: string | Partial<Record<'sandbox' | 'live', string>>;
  /** Whether the provider_a integration has an API key (default false). */
  providerAApiKey?: boolean;
  defaultLocale?: 'en' | 'fr';
  /** Save the webhook secrets when creating the integrations (default true). */
  secrets?: boolean;
  /**
   * A second server on the same records, as another process would run it (own engine and app,
   * same clock, same SMTP server): on MariaDB a second MySQL store on the same database, on the
   * embedded store the same store. `deliver(..., { peer: true })` goes to it.
   */
  peer?: boolean;
  /** How the store is opened (MySQL pool size, retries). */
  store?: TestStoreOptions;
  /** The app's request log (default: the harness's `logLines`). */
  log?: RequestLogger;
}

/**
 * A vendor with one product ("Acme Editor", plans `pro` and `team` (subscriptions) and `lifetime`
 * (perpetual)), a provider_a and a provider_b integration mapping the fixtures' prices, sender
 * details, and a real SMTP server receiving the key e-mails, on a harness of `setup`. The clock
 * starts at the fixtures' time.
 */
export async function createWorld(setup: Setup, options: WorldOptions = {}): Promise<World> {
  const smtp = await startSmtpCapture({ starttls: false });
  // Registered before the harness, so it closes after the harness's servers.
  afterTest(() => smtp.close());
  const h = await createHarness(
    setup,
    {
      limits: { vendorPerAccount: 1_000_000, clientPerIp: 1_000_000, clientPerKeyAndIp: 1_000_000 },
      ...(options.log ? { log: options.log } : {}),
    },
    {
      smtp,
      webhooks: true,
      startAt: Date.parse('2024-04-12T10:40:00Z'),
      ...(options.providerAApiUrl ? { providerAApiUrl: options.providerAApiUrl } : {}),
      ...(options.servicePlans ? { servicePlans: options.servicePlans } : {}),
      ...(options.store ? { store: options.store } : {}),
      ...(options.peer ? { peer: true } : {}),
    },
  );
  const { clock } = h;
  const call = async (path: string, init: RequestInit, via: (path: string, init?: RequestInit) => Promise<Response> = h.fetch): Promise<Answer> => {
    const res = await via(path, init);
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text === '' ? null : JSON.parse(text) };
  };

  const { account, apiKey } = await h.engine.createAccount({
    name: 'Acme Software',
    ownerEmail: 'owner@acme.test',
    servicePlan: options.servicePlan ?? 'unlimited',
  });
  const auth = { authorization: `Bearer ${apiKey.key}` };
  const api = (method: string, path: string, body?: unknown) =>
    call(`/v1${path}`, {
      method,
      headers: body === undefined ? auth : { ...auth, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const must = async (answer: Promise<Answer>, status: number) => {
    const a = await answer;
    if (a.status !== status) throw new Error(`setup call answered ${a.status}: ${JSON.stringify(a.body)}`);
    return a.body;
  };

  await must(api('PATCH', '/account', { senderName: 'Acme Licensing', senderEmail: 'licenses@acme.test', replyTo: 'support@acme.test', defaultLocale: options.defaultLocale ?? 'en' }), 200);
  const product = await must(api('POST', '/products', { name: 'Acme Editor', keyPrefix: 'ACME', graceDays: 3, offlineDays: 14 }), 201);
  await must(api('POST', `/products/${product.id}/plans`, { code: 'pro', name: 'Pro', kind: 'subscription', maxActivations: 2, entitlements: ['export'] }), 201);
  await must(api('POST', `/products/${product.id}/plans`, { code: 'team', name: 'Team', kind: 'subscription', maxActivations: 5, entitlements: ['export', 'share'], maxMajor: 3 }), 201);
  await must(api('POST', `/products/${product.id}/plans`, { code: 'lifetime', name: 'Lifetime', kind: 'perpetual', maxActivations: 1, maxMajor: 2 }), 201);
  const withSecrets = options.secrets ?? true;
  const integrationA = await must(
    api('POST', '/integrations', {
      provider: 'provider_a',
      product: product.id,
      priceMap: { [PRICES.a.pro]: 'pro', [PRICES.a.lifetime]: 'lifetime', [PRICES.a.team]: 'team' },
      ...(withSecrets ? { webhookSecret: SECRET_A } : {}),
      ...(options.providerAApiKey ? { apiKey: PROVIDER_A_API_KEY } : {}),
    }),
    201,
  );
  const integrationB = await must(
    api('POST', '/integrations', {
      provider: 'provider_b',
      product: product.id,
      priceMap: { [PRICES.b.pro]: 'pro', [PRICES.b.lifetime]: 'lifetime' },
      ...(withSecrets ? { webhookSecret: SECRET_B } : {}),
    }),
    201,
  );

  return {
    clock,
    get engine() {
      return h.engine;
    },
    harness: h,
    smtp,
    accountId: account.id,
    productId: product.id,
    integrationA: integrationA.id,
    integrationB: integrationB.id,
    serverUrl: h.url,
    api,
    client: (action, body) =>
      call(`/v1/licenses/${action}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    deliver(provider, body, opts = {}) {
      const raw = typeof body === 'string' ? (body.trimStart().startsWith('{') ? body : readFixture(provider, body)) : JSON.stringify(body);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      const secret = opts.secret ?? (provider === 'provider_a' ? SECRET_A : SECRET_B);
      if (opts.signature !== null) {
        if (provider === 'provider_a') headers['provider-a-signature'] = opts.signature ?? signProviderA(raw, secret, Math.floor(clock.now() / 1000));
        else headers['x-signature'] = opts.signature ?? signProviderB(raw, secret);
      }
      const id = opts.integrationId ?? (provider === 'provider_a' ? integrationA.id : integrationB.id);
      if (opts.peer && !h.peer) throw new Error('deliver: the world has no peer server (WorldOptions.peer)');
      return call(opts.path ?? `/v1/webhooks/${provider}/${id}`, { method: 'POST', headers, body: raw }, opts.peer ? h.peer!.fetch : h.fetch);
    },
    async events(type) {
      const all: any[] = [];
      let cursor: string | null = null;
      do {
        const page: Answer = await api('GET', `/events${cursor ? `?cursor=${cursor}` : ''}`);
        all.push(...page.body.data);
        cursor = page.body.nextCursor;
      } while (cursor);
      return all.reverse().filter((e) => type === undefined || e.type === type);
    },
    async licenses() {
      const page = await api('GET', '/licenses');
      return [...page.body.data].reverse();
    },
  };
}

/** A provider_a fixture as an object with a fresh event ID and time, to change before delivering. */
export function eventA(name: string, changes: { eventId?: string; occurredAt?: string } = {}): Record<string, any> {
  const body = fixtureJson('provider_a', name);
  if (changes.eventId) body.event_id = changes.eventId;
  if (changes.occurredAt) body.occurred_at = changes.occurredAt;
  return body;
}

export { fixtureJson, readFixture };
