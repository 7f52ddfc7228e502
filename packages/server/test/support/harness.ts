import { randomBytes } from 'node:crypto';
import { afterEach, describe } from 'vitest';
import { createIdGenerator, createLicenseEngine, createSecretBox, cryptoRandom, type ServicePlanTable, type Store } from '@svc-licensing/license-engine';
import { createApp, listen, settled, type AppOptions } from '../../src/index.js';
import type { MySqlStore } from '../../src/stores/mysql/index.js';
import { openTestStore, STORE_KINDS, type StoreKind, type TestStoreOptions } from './stores.js';
import { createKeyEmailSender } from '../../src/key-email.js';
import { createSmtpMailer } from '../../src/mail/smtp-mailer.js';
import { createProviderAClient } from '../../src/provider-a-client.js';
import { createWebhookRoutes } from '../../src/routes/webhooks.js';
import type { SmtpCapture } from './smtp-capture.js';

export type { StoreKind } from './stores.js';

/** How the suite reaches the app: in-process (`app.fetch`) or over a real socket (`listen`). */
export type Mode = 'in-process' | 'node-server';
export const MODES: readonly Mode[] = ['in-process', 'node-server'];

/** Where one run of a suite happens: how the app is reached and which real store it runs on. */
export interface Setup {
  mode: Mode;
  store: StoreKind;
}

/** Every way the HTTP suites run: each mode on each real store. */
export const SETUPS: readonly Setup[] = MODES.flatMap((mode) => STORE_KINDS.map((store) => ({ mode, store })));

/** A JSON answer: status, headers, parsed body (null when empty). */
export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** A clock the engine and the rate limiter share; tests move it forward. */
export interface TestClock {
  now(): number;
  advance(ms: number): void;
  /** Sets the time to an ISO 8601 instant. */
  set(iso: string): void;
}

/** A signed-in dashboard session for HTTP tests (made through the real sign-in link POST). */
export interface SignedIn {
  accountId: string;
  email: string;
  role: 'owner' | 'member';
  /** The session token (the cookie's value). */
  token: string;
  /** `svc_session=<token>`, for a `cookie` header. */
  cookie: string;
  /** `cookie` plus a same-origin `origin` header: what the dashboard's own requests carry. */
  headers: Record<string, string>;
}

/** Options of {@link Harness.api}. */
export interface ApiOptions {
  /** The API key to send; the first account's by default; `null` sends none. Ignored with `session`. */
  key?: string | null;
  /** Call with this session's cookie (and a same-origin `Origin`) instead of an API key. */
  session?: SignedIn;
  /** With `session`: the `Origin` header to send instead of the public one; `null` sends none. */
  origin?: string | null;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

export interface Harness {
  mode: Mode;
  storeKind: StoreKind;
  clock: TestClock;
  /** The store now open under the engine (a new one after `restart()`). */
  store(): import('@svc-licensing/license-engine').Store;
  /** Where the store keeps its records: the data folder, or the MariaDB database. */
  storeLocation: import('./stores.js').OpenedStore['location'];
  /** The engine of the app now serving (a new one after `restart()`). */
  readonly engine: ReturnType<typeof createLicenseEngine>;
  /** The master key the app's secret box uses (for tests that seal or open stored values themselves). */
  masterKey: Uint8Array;
  /** The listening server's origin (`node-server` mode; a new one after `restart()`), else null. */
  readonly url: string | null;
  /**
   * With `extras.peer`: a second app, as another process of one deployment would run it (its own
   * engine and app, same clock, master key and mail), on the second store of the same records
   * (`OpenedStore.second`), reached the same way. It is not restarted by `restart()`.
   */
  peer: { engine: ReturnType<typeof createLicenseEngine>; fetch(path: string, init?: RequestInit): Promise<Response> } | null;
  /** The API key of the first account (service plan `unlimited`). */
  apiKey: string;
  accountId: string;
  /** Lines the app logged. */
  logLines: Record<string, unknown>[];
  /** Raw request; `path` starts with `/`. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** A vendor API call with the first account's key (or `options.key`; `null` sends none), or with `options.session`'s cookie. */
  api<T = any>(method: string, path: string, body?: unknown, options?: ApiOptions): Promise<Answer<T>>;
  /**
   * Signs in over HTTP (a sign-in link issued by the engine, then `POST /sign-in?token=...`) as the
   * owner of the first account (or `accountId`'s), or as a new member of it (`role: 'member'`, or
   * `email` of an existing member).
   */
  signIn(options?: { role?: 'owner' | 'member'; accountId?: string; email?: string }): Promise<SignedIn>;
  /** A client API call (no auth, JSON). */
  client<T = any>(action: 'activate' | 'validate' | 'deactivate' | 'borrow', body: unknown, headers?: Record<string, string>): Promise<Answer<T>>;
  /** Resolves once the work the app started after its answers (link e-mails) has ended. */
  settled(): Promise<void>;
  /** A second, separate account. */
  newAccount(servicePlan?: string): Promise<{ accountId: string; apiKey: string }>;
  /**
   * Stops the app and closes the store, then opens the same data folder or database again with a
   * new engine and app (same master key, clock and options): a server restart.
   */
  restart(): Promise<void>;
}

export const PUBLIC_BASE_URL = 'https://licensing.example.test';
/** The `Origin` of the dashboard's own requests. */
export const PUBLIC_ORIGIN = new URL(PUBLIC_BASE_URL).origin;

/**
 * Builds an engine on a fresh real store (`setup.store`; a bare mode means the embedded store)
 * and an app on it, reached the way `setup.mode` says. Server and store are closed, and the
 * store's folder removed, after each test.
 */
/** What a harness adds to the app besides `AppOptions`. */
export interface HarnessExtras {
  /** Send account and key e-mails to this SMTP capture (through the real SMTP mailer). */
  smtp?: SmtpCapture;
  /** Mount the webhook receiver (`/v1/webhooks/{provider}/{id}`) as the CLI's server does; needs `smtp` (key e-mails). */
  webhooks?: boolean;
  /** With `webhooks`: the base URL of the provider_a customer API the receiver asks (one for both environments, or one per environment); none by default. */
  providerAApiUrl?: string | Partial<Record<'sandbox' | 'live', string>>;
  /** The engine's service plans (the engine's defaults otherwise). */
  servicePlans?: ServicePlanTable;
  /** The clock's first instant (ms); 2026-01-15T12:00:00Z by default. */
  startAt?: number;
  /** How the store is opened (MySQL pool size and retries). */
  store?: TestStoreOptions;
  /** Serve a second app on the same records: `Harness.peer`. */
  peer?: boolean;
}

export async function createHarness(setup: Setup | Mode, options: Partial<AppOptions> = {}, extras: HarnessExtras = {}): Promise<Harness> {
  if (extras.webhooks && !extras.smtp) throw new Error('webhooks need an smtp capture for the key e-mails');
  const { mode, store: storeKind } = typeof setup === 'string' ? { mode: setup, store: 'embedded' as const } : setup;
  let time = extras.startAt ?? Date.UTC(2026, 0, 15, 12, 0, 0);
  const clock: TestClock = { now: () => time, advance: (ms) => void (time += ms), set: (iso) => void (time = Date.parse(iso)) };
  const masterKey = new Uint8Array(randomBytes(32));
  const opened = await openTestStore(storeKind, extras.store);
  // Registered first, so it runs after the server (closed in reverse order) has stopped.
  cleanups.push(opened.close);
  const logLines: Record<string, unknown>[] = [];
  const providerA = extras.providerAApiUrl ? { providerA: createProviderAClient({ baseUrl: extras.providerAApiUrl, timeoutMs: 2_000 }) } : {};

  /** An engine and app on `store`, reached the way `mode` says. */
  async function serve(store: Store) {
    const engine = createLicenseEngine({
      store,
      clock,
      random: cryptoRandom,
      ids: createIdGenerator({ clock, random: cryptoRandom }),
      secrets: createSecretBox(masterKey),
      ...(extras.servicePlans ? { servicePlans: extras.servicePlans } : {}),
    });
    // `GET /ready` asks the MySQL store, as `serve` wires it.
    const readiness = storeKind === 'mysql' ? { readiness: () => (store as MySqlStore).health() } : {};
    const mailer = extras.smtp ? createSmtpMailer({ host: '127.0.0.1', port: extras.smtp.port, security: 'none', timeoutMs: 10_000 }) : null;
    const keyEmails = mailer ? createKeyEmailSender({ engine, mailer, sender: { fromAddress: 'no-reply@svc.test' } }) : null;
    const app = createApp({
      engine,
      publicBaseUrl: PUBLIC_BASE_URL,
      clock,
      log: (line) => void logLines.push({ ...line }),
      onError: (msg, error) => void logLines.push({ msg, error: String(error) }),
      ...(mailer ? { mail: { mailer, fromAddress: 'no-reply@svc.test' } } : {}),
      ...(keyEmails ? { hooks: { sendKeyEmail: keyEmails.hook } } : {}),
      ...(extras.webhooks ? { routes: createWebhookRoutes({ keyEmails: keyEmails!, clock, ...providerA }), ...providerA } : {}),
      ...readiness,
      ...options,
    });
    if (mode === 'in-process') {
      const fetchImpl = async (path: string, init?: RequestInit) => app.fetch(new Request(`http://localhost${path}`, init));
      return { engine, app, url: null, fetch: fetchImpl, close: async () => undefined };
    }
    // No grace for idle keep-alive connections on close: the harness closes only after a test (or
    // in restart()), when no request is on its way; lifecycle/ tests the grace itself.
    const server = await listen(app, { port: 0, host: '127.0.0.1', handleSignals: false, idleGraceMs: 0 });
    let stopped = false;
    const close = async () => {
      if (stopped) return;
      stopped = true;
      await server.close();
    };
    cleanups.push(close);
    return { engine, app, url: server.url, fetch: (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init), close };
  }
  let current = await serve(opened.store());
  const peer = extras.peer ? await serve(await opened.second()) : null;

  const newAccount = async (servicePlan?: string) => {
    const { account, apiKey } = await current.engine.createAccount({
      name: 'Vendor',
      ownerEmail: `owner-${Math.random().toString(36).slice(2)}@vendor.test`,
      ...(servicePlan === undefined ? {} : { servicePlan }),
    });
    return { accountId: account.id, apiKey: apiKey.key };
  };
  const first = await newAccount('unlimited');
  const call = async (path: string, init: RequestInit): Promise<Answer> => {
    const res = await current.fetch(path, init);
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text === '' ? null : JSON.parse(text) };
  };
  return {
    mode,
    storeKind,
    clock,
    get engine() {
      return current.engine;
    },
    get url() {
      return current.url;
    },
    peer: peer && { engine: peer.engine, fetch: peer.fetch },
    store: () => opened.store(),
    storeLocation: opened.location,
    masterKey,
    apiKey: first.apiKey,
    accountId: first.accountId,
    logLines,
    fetch: (path, init) => current.fetch(path, init),
    settled: () => settled(current.app),
    newAccount,
    async restart() {
      await current.close();
      await opened.reopen();
      current = await serve(opened.store());
    },
    async signIn(opts = {}) {
      const accountId = opts.accountId ?? first.accountId;
      let email = opts.email;
      if (email === undefined && opts.role === 'member') {
        email = `member-${Math.random().toString(36).slice(2)}@vendor.test`;
        await current.engine.addMember(accountId, { email });
      }
      const link = await current.engine.issueSignInLink(accountId, email === undefined ? {} : { email });
      const res = await current.fetch(`/sign-in?token=${encodeURIComponent(link.token)}`, { method: 'POST', headers: { origin: PUBLIC_ORIGIN }, redirect: 'manual' });
      await res.text();
      const cookie = /^(svc_session=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
      if (res.status !== 303 || cookie === undefined) throw new Error(`sign-in failed: ${res.status}`);
      const who = await call('/v1/session', { headers: { cookie } });
      if (who.status !== 200) throw new Error(`the new session does not authenticate: ${who.status}`);
      return { accountId, email: link.email, role: who.body.role, token: cookie.slice('svc_session='.length), cookie, headers: { cookie, origin: PUBLIC_ORIGIN } };
    },
    api(method, path, body, opts = {}) {
      const key = opts.session ? null : opts.key === undefined ? first.apiKey : opts.key;
      const headers: Record<string, string> = {};
      if (key !== null) headers.authorization = `Bearer ${key}`;
      if (opts.session) {
        headers.cookie = opts.session.cookie;
        const origin = opts.origin === undefined ? PUBLIC_ORIGIN : opts.origin;
        if (origin !== null) headers.origin = origin;
      }
      Object.assign(headers, opts.headers);
      if (body !== undefined) headers['content-type'] = 'application/json';
      return call(`/v1${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    },
    client(action, body, headers = {}) {
      return call(`/v1/licenses/${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    },
  };
}

const cleanups: (() => Promise<void>)[] = [];
/**
 * Runs `close` after the test, in the harness's order (newest first): what a test registers before
 * it creates a harness (an SMTP server the app sends to) is closed after that harness's servers.
 */
export function afterTest(close: () => Promise<void>): void {
  cleanups.push(close);
}
afterEach(async () => {
  // Newest first: a listening server stops before the store under it closes.
  const failures: unknown[] = [];
  for (const close of cleanups.splice(0).reverse()) await close().catch((error: unknown) => failures.push(error));
  if (failures.length > 0) throw failures[0];
});

/**
 * Runs the same suite once per setup: in-process and against a real listening server on
 * 127.0.0.1:0, each on the embedded store and on MariaDB.
 */
export function describeEverySetup(name: string, suite: (setup: Setup) => void): void {
  for (const setup of SETUPS) describe(`${name} (${setup.mode}, ${setup.store})`, () => suite(setup));
}

/**
 * Runs the same suite once per store, in-process: for suites whose subject is the engine's rules
 * over HTTP rather than the transport (the payment suites), on the embedded store and on MariaDB.
 */
export function describeEveryStore(name: string, suite: (setup: Setup) => void): void {
  for (const store of STORE_KINDS) describe(`${name} (${store})`, () => suite({ mode: 'in-process', store }));
}
