// A client on a stored floating lease with fake clocks (wall, monotonic, timers) and a real loopback
// TCP server that counts the connections the client opens and closes each at once (a network error).
import { createServer, type Server } from 'node:net';
import { base64urlEncode, type CertificatePayload } from '@svc-licensing/cert-format';
import { createCertificateSigner, publicKeyFromSeed } from '@svc-licensing/cert-format/sign';
import { afterAll, beforeAll } from 'vitest';
import { basePayload, T0, TEST_MACHINE_ID, TEST_PRODUCT, TEST_SEED_K1 } from '../../../../test-vectors/fixtures.js';
import { createLicenseClient } from '../../src/client.js';
import type { HeartbeatTimers } from '../../src/client-heartbeat.js';
import type { LicenseClientOptions } from '../../src/client-options.js';
import { decodeLicenseState, emptyLicenseState, encodeLicenseState, type LicenseState, type StoredLease } from '../../src/storage.js';
import { createMemoryStorage, type MemoryLicenseStorage } from '../../src/storage-memory.js';

export const KEY = 'TEST-AAAAA-BBBBB-CCCCC-DDDDD';
export const LEASE = 900;
export const publicKeys = { k1: base64urlEncode(publicKeyFromSeed(TEST_SEED_K1)) };
const signer = createCertificateSigner(TEST_SEED_K1);

/** A floating certificate issued at T0: refresh after a third of the lease, expiring at its end. */
export const floatingCertificate = (overrides: Partial<CertificatePayload> = {}): string =>
  signer.sign(basePayload({ refreshAfter: T0 + LEASE / 3, expiresAt: T0 + LEASE, ...overrides }));

/** The lease the SDK stores for a floating certificate received at `receivedAt` on the machine's wall clock. */
export const leaseAt = (receivedAt: number, overrides: Partial<StoredLease> = {}): StoredLease => ({
  leaseSeconds: LEASE,
  leaseExpiresAt: T0 + LEASE,
  borrowedUntil: null,
  issuedAt: T0,
  receivedAt,
  ranMs: 0,
  ...overrides,
});

/** Connections a client opened to the counting server; each is closed at once. */
export const counting = { connections: 0, baseUrl: '' };
let server: Server | undefined;
beforeAll(async () => {
  server = createServer((socket) => {
    counting.connections++;
    // Reset once the request arrives (undici waits out its timeout on a socket closed before it wrote).
    socket.once('data', () => socket.destroy());
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  counting.baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server!.close(() => resolve())));

/** Timers the test fires by hand: each planned run with its delay. */
export class FakeTimers implements HeartbeatTimers {
  pending: { run: () => void; ms: number; id: number }[] = [];
  #next = 0;
  setTimeout(run: () => void, ms: number): unknown {
    const id = ++this.#next;
    this.pending.push({ run, ms, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending = this.pending.filter((t) => t.id !== handle);
  }
  /** The one pending timer's delay. */
  get delay(): number {
    if (this.pending.length !== 1) throw new Error(`expected one pending timer, found ${this.pending.length}`);
    return this.pending[0]!.ms;
  }
  /** Runs the one pending timer. */
  fire(): void {
    const timer = this.pending[0];
    if (timer === undefined || this.pending.length !== 1) throw new Error(`expected one pending timer, found ${this.pending.length}`);
    this.pending = [];
    timer.run();
  }
}

/** A machine: the client over `storage`, its wall clock (ms) and monotonic clock (ms), both moved by the test. */
export interface Machine {
  client: ReturnType<typeof createLicenseClient>;
  storage: MemoryLicenseStorage;
  timers: FakeTimers;
  wall: { now: number };
  mono: { now: number };
  /** Moves both clocks (the machine runs). */
  run(ms: number): void;
  stored(): LicenseState;
}

/** A machine whose storage holds `state`, its wall clock at `wallMs`; `storage` shares a document with an earlier run. */
export function machine(state: Partial<LicenseState> | null, wallMs: number, extra: Partial<LicenseClientOptions> = {}, storage?: MemoryLicenseStorage): Machine {
  const store = storage ?? createMemoryStorage(state === null ? null : encodeLicenseState({ ...emptyLicenseState(TEST_PRODUCT), ...state }));
  const wall = { now: wallMs };
  const mono = { now: 12_345 }; // a monotonic clock starts anywhere
  const timers = new FakeTimers();
  const client = createLicenseClient({
    baseUrl: counting.baseUrl,
    product: TEST_PRODUCT,
    publicKeys,
    appVersion: '1.2.0',
    storage: store,
    machineId: TEST_MACHINE_ID,
    now: () => wall.now,
    monotonicNow: () => mono.now,
    timers,
    timeoutMs: 5000,
    ...extra,
  });
  return {
    client,
    storage: store,
    timers,
    wall,
    mono,
    run(ms) {
      wall.now += ms;
      mono.now += ms;
    },
    stored: () => decodeLicenseState(store.text, TEST_PRODUCT),
  };
}

/** The stored state of a machine that received a fresh floating certificate at `receivedAt` (its own wall clock). */
export const floatingState = (receivedAt: number, lease: Partial<StoredLease> = {}, payload: Partial<CertificatePayload> = {}): Partial<LicenseState> => ({
  key: KEY,
  certificate: floatingCertificate(payload),
  highestIssuedAt: T0,
  lease: leaseAt(receivedAt, lease),
});
