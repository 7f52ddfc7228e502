import { base64urlDecode, isFingerprint, machineFingerprint } from '@svc-licensing/cert-format';
import { LicenseClientError } from './client-errors.js';
import { defaultTimers, type HeartbeatTimers } from './client-heartbeat.js';
import type { FetchLike } from './client-http.js';
import type { LicenseCheck } from './client-types.js';
import { publicKeyMap, type PublicKeys } from './public-keys.js';
import type { LicenseStorage } from './storage.js';

/** Options of `createLicenseClient`. Give exactly one of `machineId` and `fingerprint`. */
export interface LicenseClientOptions {
  /** The service address including the version segment, e.g. `https://licensing.example.com/v1`. */
  baseUrl: string;
  /** The product ID (`prd_...`); public. */
  product: string;
  /**
   * Public signing keys of the product: kid → base64url raw 32-byte Ed25519 key, or the key list
   * `GET /v1/products/{id}/keys` returns, as is (see `PublicKeys`). Embed every key you publish.
   */
  publicKeys: PublicKeys;
  /** The application's version, e.g. `2.4.1`; its major number is checked against the certificate's `maxMajor`. */
  appVersion: string;
  /** Where the certificate, the license key and the highest `issuedAt` are kept. */
  storage: LicenseStorage;
  /** `fetch` to use; default the global one (Node 20+, browsers, Electron). */
  fetch?: FetchLike;
  /** The raw machine ID (see `readMachineId` in `@svc-licensing/verifier/node`); hashed into the fingerprint. */
  machineId?: string;
  /** A ready fingerprint (64 lowercase hex), for apps that compute it themselves. */
  fingerprint?: string;
  /** The wall clock in milliseconds since the Unix epoch (like `Date.now`); tests move it. */
  now?: () => number;
  /**
   * A monotonic clock in milliseconds (like `performance.now`, the default): it times a floating
   * lease from the certificate's receipt, whatever the wall clock says. Tests move it.
   */
  monotonicNow?: () => number;
  /**
   * Keep a floating seat while the app runs: validate at each certificate's `refreshAfter` (less up
   * to 10% of the refresh interval, at random), retry after failures, and stop on `release()`,
   * `deactivate()` or a refusal. Its timers never keep a Node process alive. Default false: the app
   * calls `check()` and it validates once `refreshAfter` has passed.
   */
  heartbeat?: boolean;
  /** Called with the license state after every heartbeat (renewed, kept offline, or refused). */
  onHeartbeat?: (check: LicenseCheck) => void;
  /** The heartbeat's timers; default the global `setTimeout`, unref'd. Tests pass fake ones. */
  timers?: HeartbeatTimers;
  /** Abort a client API call after this many milliseconds (counted as a network error); default 15000. */
  timeoutMs?: number;
  /**
   * After the server refused the license (403, or 404 `not_activated`/`unknown_key`/`unknown_product`),
   * `check()` asks again at most once per this many milliseconds, so a reinstated license comes back;
   * default 3600000 (one hour), at least 60000.
   */
  refusalRetryMs?: number;
}

/** The checked, derived configuration the client runs on. */
export interface ClientConfig {
  endpoint: (name: 'activate' | 'validate' | 'deactivate' | 'borrow') => string;
  /** `GET {baseUrl}/products/{product}/revocations`: the product's current RVL1 list. */
  revocationsUrl: string;
  product: string;
  publicKeys: Readonly<Record<string, string>>;
  appVersion: string;
  appMajor: number;
  storage: LicenseStorage;
  fetch: FetchLike;
  fingerprint: string;
  now: () => number;
  monotonicNow: () => number;
  timeoutMs: number;
  refusalRetrySeconds: number;
  heartbeat: boolean;
  onHeartbeat: ((check: LicenseCheck) => void) | null;
  timers: HeartbeatTimers;
}

const systemMonotonic = (): (() => number) => {
  const performance = (globalThis as { performance?: { now(): number } }).performance;
  return typeof performance?.now === 'function' ? () => performance.now() : Date.now;
};

const invalid = (message: string): LicenseClientError => new LicenseClientError('invalid_argument', message);
const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '';

/** Checks the options and derives the configuration; throws `invalid_argument` on a programmer error. */
export function resolveClientOptions(options: LicenseClientOptions): ClientConfig {
  if (typeof options !== 'object' || options === null) throw invalid('createLicenseClient: expected an options object');
  const { baseUrl, product, publicKeys, appVersion, storage, machineId, fingerprint } = options;
  if (!nonEmpty(baseUrl) || !/^https?:\/\//i.test(baseUrl)) throw invalid('baseUrl must be an http(s) URL ending with /v1');
  if (!nonEmpty(product)) throw invalid('product must be the product ID');
  const keys = publicKeyMap(publicKeys);
  if (keys === null || Object.keys(keys).length === 0) {
    throw invalid('publicKeys must map at least one kid to a base64url public key, or be the key list GET /products/{id}/keys returns');
  }
  for (const [kid, text] of Object.entries(keys)) {
    if ((typeof text === 'string' ? base64urlDecode(text) : undefined)?.length !== 32) {
      throw invalid(`publicKeys.${kid} must be base64url of a raw 32-byte Ed25519 public key`);
    }
  }
  const major = nonEmpty(appVersion) ? /^v?(\d+)(?:[.\-+]|$)/.exec(appVersion.trim()) : null;
  if (major === null) throw invalid('appVersion must start with a major version number, e.g. "2.4.1"');
  if (typeof storage !== 'object' || storage === null || typeof storage.read !== 'function' || typeof storage.write !== 'function') {
    throw invalid('storage must have read() and write(text)');
  }
  if ((machineId === undefined) === (fingerprint === undefined)) throw invalid('give exactly one of machineId and fingerprint');
  if (machineId !== undefined && !nonEmpty(machineId)) throw invalid('machineId must be a non-empty string');
  if (fingerprint !== undefined && !isFingerprint(fingerprint)) throw invalid('fingerprint must be 64 lowercase hex characters');
  const timeoutMs = options.timeoutMs ?? 15_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw invalid('timeoutMs must be a positive number');
  const refusalRetryMs = options.refusalRetryMs ?? 3_600_000;
  if (!Number.isFinite(refusalRetryMs) || refusalRetryMs < 60_000) throw invalid('refusalRetryMs must be at least 60000');
  for (const name of ['now', 'monotonicNow', 'onHeartbeat'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') throw invalid(`${name} must be a function`);
  }
  if (options.heartbeat !== undefined && typeof options.heartbeat !== 'boolean') throw invalid('heartbeat must be true or false');
  const { timers } = options;
  if (timers !== undefined && (typeof timers?.setTimeout !== 'function' || typeof timers.clearTimeout !== 'function')) {
    throw invalid('timers must have setTimeout(run, ms) and clearTimeout(handle)');
  }
  const base = baseUrl.replace(/\/+$/, '');
  const fetchFn: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return {
    endpoint: (name) => `${base}/licenses/${name}`,
    revocationsUrl: `${base}/products/${encodeURIComponent(product)}/revocations`,
    product,
    publicKeys: keys as Record<string, string>,
    appVersion,
    appMajor: Number(major[1]),
    storage,
    fetch: fetchFn,
    fingerprint: fingerprint ?? machineFingerprint(product, machineId as string),
    now: options.now ?? Date.now,
    monotonicNow: options.monotonicNow ?? systemMonotonic(),
    timeoutMs,
    refusalRetrySeconds: Math.floor(refusalRetryMs / 1000),
    heartbeat: options.heartbeat ?? false,
    onHeartbeat: options.onHeartbeat ?? null,
    timers: timers ?? defaultTimers,
  };
}
