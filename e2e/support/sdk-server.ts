// The real reference server for the SDK's end-to-end tests: the engine on its memory store with a
// clock the test moves, the h3 app, and a Node HTTP server on 127.0.0.1 that the test can stop and
// start again on the same port. No HTTP mocks: every SDK call crosses a real socket.
import { randomBytes } from 'node:crypto';
import {
  createIdGenerator,
  createLicenseEngine,
  createMemoryStore,
  createSecretBox,
  cryptoRandom,
} from '@svc-licensing/license-engine';
import { createApp, listen, type AppOptions, type RunningServer } from '@svc-licensing/server';
import { afterEach, expect } from 'vitest';
import {
  createLicenseClient,
  createMemoryStorage,
  decodeLicenseState,
  type LicenseClient,
  type LicenseClientOptions,
  type LicenseState,
  type MemoryLicenseStorage,
} from '@svc-licensing/verifier';

export const DAY_MS = 86_400_000;

/** A clock shared by the server and the SDK; each side can also be moved alone. */
export interface TestClock {
  now(): number;
  advance(ms: number): void;
}

export interface SdkServer {
  /** `http://127.0.0.1:<port>/v1` (stays the same across stop and start). */
  baseUrl: string;
  /** The server's clock (engine and rate limiter). */
  clock: TestClock;
  /** Client API requests the server answered, by action (`activate`, `validate`, `deactivate`). */
  clientCalls(action: string): number;
  /** The GETs of a product's revocation list the server answered, with their status (200, 304, 404). */
  listRequests(): { product: string; status: number }[];
  stop(): Promise<void>;
  start(): Promise<void>;
  /** A vendor API call with the test account's key; fails the test on a non-2xx answer. */
  api<T = any>(method: string, path: string, body?: unknown): Promise<T>;
  /** A product with a subscription plan and an active license paid for 30 days. */
  license(options?: { plan?: Record<string, unknown>; product?: Record<string, unknown> }): Promise<Licensed>;
  /**
   * The private seed of one of the product's signing keys (through the engine's owner-only export),
   * so a test can sign RVL1 revocation lists the server would not (an older seq, a pending key, tampered).
   */
  signingSeed(productId: string, kid: string): Promise<Uint8Array>;
}

export interface Licensed {
  product: string;
  planId: string;
  licenseId: string;
  key: string;
  /** The product's published public keys (kid → base64url). */
  publicKeys: Record<string, string>;
}

const running: SdkServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
});

const clockAt = (start: number): TestClock => {
  let time = start;
  return { now: () => time, advance: (ms) => void (time += ms) };
};

/**
 * Starts the reference server (stopped after the test). Its clock starts at `startAt` (ms; a fixed
 * instant by default, so runs are reproducible; pass `Date.now()` when a real-time process talks to it).
 */
export async function startServer(options: Partial<AppOptions> = {}, startAt = Date.UTC(2026, 2, 1, 9, 0, 0)): Promise<SdkServer> {
  const clock = clockAt(startAt);
  const engine = createLicenseEngine({
    store: createMemoryStore(),
    clock,
    random: cryptoRandom,
    ids: createIdGenerator({ clock, random: cryptoRandom }),
    secrets: createSecretBox(new Uint8Array(randomBytes(32))),
  });
  const calls = new Map<string, number>();
  const lists: { product: string; status: number }[] = [];
  const app = createApp({
    engine,
    publicBaseUrl: 'https://licensing.example.test',
    clock,
    log: (line) => {
      const action = /^\/v1\/licenses\/(activate|validate|deactivate)$/.exec(line.path)?.[1];
      if (action && line.method === 'POST') calls.set(action, (calls.get(action) ?? 0) + 1);
      const listed = /^\/v1\/products\/([^/]+)\/revocations$/.exec(line.path)?.[1];
      if (listed && line.method === 'GET') lists.push({ product: decodeURIComponent(listed), status: line.status });
    },
    ...options,
  });
  const { account, apiKey } = await engine.createAccount({ name: 'Vendor', ownerEmail: 'owner@vendor.test', servicePlan: 'unlimited' });

  let server: RunningServer | null = await listen(app, { port: 0, host: '127.0.0.1', handleSignals: false });
  const origin = server.url;
  const port = Number(new URL(origin).port);

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${origin}/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    expect(res.ok, `${method} ${path} → ${res.status} ${text}`).toBe(true);
    return text === '' ? null : JSON.parse(text);
  };

  const harness: SdkServer = {
    baseUrl: `${origin}/v1`,
    clock,
    clientCalls: (action) => calls.get(action) ?? 0,
    listRequests: () => [...lists],
    async stop() {
      const current = server;
      server = null;
      await current?.close();
      // Let this process's HTTP clients see the closed keep-alive sockets before anything reconnects.
      await new Promise((resolve) => setTimeout(resolve, 20));
    },
    async start() {
      if (server === null) server = await listen(app, { port, host: '127.0.0.1', handleSignals: false });
    },
    api,
    async license(options = {}) {
      const product = await api('POST', '/products', { name: 'Acme Editor', keyPrefix: 'ACME-', graceDays: 3, offlineDays: 14, ...options.product });
      const plan = await api('POST', `/products/${product.id}/plans`, {
        code: 'pro',
        kind: 'subscription',
        maxActivations: 2,
        entitlements: ['export', 'sync'],
        ...options.plan,
      });
      const paidUntil = new Date(clock.now() + 30 * DAY_MS).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const license = await api('POST', '/licenses', { plan: plan.id, email: 'ada@example.com', name: 'Ada Buyer', paidUntil });
      return { product: product.id, planId: plan.id, licenseId: license.id, key: license.key, publicKeys: await publishedKeys(product.id) };
    },
    async signingSeed(productId, kid) {
      const exported = await engine.exportSigningKeys(account.id, productId);
      const key = exported.keys.find((k) => k.kid === kid);
      if (key === undefined) throw new Error(`no signing key ${kid} on ${productId}`);
      return new Uint8Array(Buffer.from(key.privateKey, 'base64url'));
    },
  };
  const publishedKeys = async (productId: string): Promise<Record<string, string>> => {
    const keys = await api('GET', `/products/${productId}/keys`);
    return Object.fromEntries(keys.data.map((k: { kid: string; publicKey: string }) => [k.kid, k.publicKey]));
  };
  running.push(harness);
  return harness;
}

/** An application on one machine: its SDK client, its storage and its own clock (starts at the server's time). */
export interface App {
  client: LicenseClient;
  storage: MemoryLicenseStorage;
  clock: TestClock;
  /** The state the SDK stored. */
  stored(): LicenseState;
}

/** Creates an app with the SDK pointed at `server`, for the license's product. */
export function app(server: SdkServer, licensed: Licensed, machine: string, options: Partial<LicenseClientOptions> = {}): App {
  const storage = createMemoryStorage();
  const clock = clockAt(server.clock.now());
  const client = createLicenseClient({
    baseUrl: server.baseUrl,
    product: licensed.product,
    publicKeys: licensed.publicKeys,
    appVersion: '1.4.0',
    storage,
    machineId: machine,
    now: clock.now,
    timeoutMs: 5000,
    ...options,
  });
  return { client, storage, clock, stored: () => decodeLicenseState(storage.text, licensed.product) };
}

/** Moves the server's and every app's clock forward together. */
export function advanceAll(server: SdkServer, apps: App[], ms: number): void {
  server.clock.advance(ms);
  for (const a of apps) a.clock.advance(ms);
}
