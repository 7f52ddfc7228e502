import { createHash, createPublicKey, verify } from 'node:crypto';
import type { PaymentCommand, PaymentResult, SubscriptionChangedCommand, SubscriptionPaidCommand } from '@svc-licensing/license-engine';
import {
  LicensingError,
  createIdGenerator,
  createLicenseEngine,
  createMemoryStore,
  createSecretBox,
} from '@svc-licensing/license-engine';
import type { Clock, LicenseEngine, Random, ServicePlanTable, Store } from '@svc-licensing/license-engine';
import { expect } from 'vitest';

/** Shared, deterministic test fixtures of the engine tests: clock, random, engine, catalog, commands, certificates. */

export const START = '2030-01-15T10:00:00Z';
export const DAY = 86_400_000;

/** A clock the test moves by hand. */
export function createTestClock(start = START) {
  let ms = Date.parse(start);
  return {
    now: () => ms,
    set: (iso: string) => {
      ms = Date.parse(iso);
    },
    advance: (delta: number) => {
      ms += delta;
    },
  } satisfies Clock & Record<string, unknown>;
}

/** A deterministic random stream: SHA-256 of a seed and a counter. */
export function createTestRandom(seed = 'engine-tests'): Random {
  let counter = 0;
  return {
    bytes(length: number): Uint8Array {
      const out = new Uint8Array(length);
      for (let offset = 0; offset < length; offset += 32) {
        const block = createHash('sha256').update(`${seed}:${counter++}`).digest();
        out.set(block.subarray(0, Math.min(32, length - offset)), offset);
      }
      return out;
    },
  };
}

export const MASTER_KEY = new Uint8Array(32).fill(42);

export interface TestEngine {
  engine: LicenseEngine;
  clock: ReturnType<typeof createTestClock>;
  store: Store;
}

export function createTestEngine(options: { servicePlans?: ServicePlanTable; store?: Store } = {}): TestEngine {
  const clock = createTestClock();
  const random = createTestRandom();
  const store = options.store ?? createMemoryStore();
  const engine = createLicenseEngine({
    store,
    clock,
    random,
    ids: createIdGenerator({ clock, random }),
    secrets: createSecretBox(MASTER_KEY),
    ...(options.servicePlans ? { servicePlans: options.servicePlans } : {}),
  });
  return { engine, clock, store };
}

/** An account (service plan `pro`) with one product, three plans and one integration per provider. */
export async function createCatalog(t: TestEngine) {
  const { engine } = t;
  const { account, apiKey } = await engine.createAccount({ name: 'Acme', ownerEmail: 'owner@acme.test', servicePlan: 'pro' });
  const product = await engine.createProduct(account.id, { name: 'Acme Editor', keyPrefix: 'ACME-', graceDays: 3, offlineDays: 7 });
  const pro = await engine.createPlan(account.id, product.id, {
    code: 'pro',
    kind: 'subscription',
    maxActivations: 2,
    entitlements: ['export', 'sync'],
    maxMajor: 3,
  });
  const team = await engine.createPlan(account.id, product.id, { code: 'team', kind: 'subscription', maxActivations: 5, entitlements: ['export', 'sync', 'admin'], offlineDays: 2 });
  const lifetime = await engine.createPlan(account.id, product.id, { code: 'lifetime', kind: 'perpetual', maxMajor: 1 });
  const trial = await engine.createPlan(account.id, product.id, { code: 'trial', kind: 'trial', entitlements: ['export'] });
  const providerA = await engine.createIntegration(account.id, {
    provider: 'provider_a',
    product: product.id,
    webhookSecret: 'whsec_a',
    priceMap: { pri_pro: 'pro', pri_team: 'team', pri_life: 'lifetime' },
  });
  const providerB = await engine.createIntegration(account.id, {
    provider: 'provider_b',
    product: product.id,
    webhookSecret: 'whsec_b',
    priceMap: { var_pro: 'pro', var_team: 'team' },
  });
  return { account, apiKey, product, plans: { pro, team, lifetime, trial }, providerA, providerB };
}

export type Catalog = Awaited<ReturnType<typeof createCatalog>>;

/** A machine fingerprint: 64 lowercase hex characters. */
export const fingerprint = (n: number) => createHash('sha256').update(`machine-${n}`).digest('hex');

/**
 * The code a provider event was refused with (`applyPaymentCommand` answers a refusal as a value);
 * fails the test when the event was applied or the call threw.
 */
export async function refusedCode(operation: Promise<PaymentResult>): Promise<string> {
  const outcome = await operation;
  if (outcome.result !== 'refused') throw new Error(`expected the event to be refused, it was ${outcome.result}`);
  expect(outcome).toMatchObject({ licenseId: null, keyEmail: null });
  return outcome.code;
}

/** The error code an operation fails with; fails the test when it succeeds or throws something else. */
export async function codeOf(operation: Promise<unknown>): Promise<string> {
  try {
    await operation;
  } catch (error) {
    if (LicensingError.is(error)) return error.code;
    throw error;
  }
  throw new Error('expected the operation to fail');
}

let eventSerial = 0;
const nextEventId = () => `evt_${String(++eventSerial).padStart(5, '0')}`;

const base = (provider: 'provider_a' | 'provider_b', eventType: string, occurredAt: string) => ({
  provider,
  eventId: nextEventId(),
  eventType,
  occurredAt,
});

/** A subscription payment (provider_b by default, the customer given by e-mail). */
export function paid(over: Partial<SubscriptionPaidCommand> & { paidUntil: string; occurredAt: string }): SubscriptionPaidCommand {
  return {
    ...base('provider_b', 'subscription_payment_success', over.occurredAt),
    kind: 'subscription_paid',
    customer: { providerCustomerId: null, email: 'buyer@example.test', name: 'Ada Buyer' },
    subscriptionId: 'sub_1',
    orderId: null,
    priceId: 'var_pro',
    quantity: 1,
    ...over,
  };
}

/** A subscription status event. */
export function changed(over: Partial<SubscriptionChangedCommand> & Pick<SubscriptionChangedCommand, 'status' | 'occurredAt'>): SubscriptionChangedCommand {
  return {
    ...base('provider_b', 'subscription_updated', over.occurredAt),
    kind: 'subscription_changed',
    customer: { providerCustomerId: null, email: 'buyer@example.test', name: 'Ada Buyer' },
    subscriptionId: 'sub_1',
    priceId: null,
    quantity: null,
    currentPeriodEnd: null,
    ...over,
  };
}

/** Any other command, with a fresh event ID. */
export function command<K extends PaymentCommand['kind']>(
  kind: K,
  fields: Omit<Extract<PaymentCommand, { kind: K }>, 'kind' | 'eventId' | 'provider' | 'eventType' | 'occurredAt'> &
    Partial<Pick<PaymentCommand, 'provider' | 'eventType' | 'eventId' | 'occurredAt'>>,
): Extract<PaymentCommand, { kind: K }> {
  return {
    ...base('provider_b', kind, START),
    kind,
    ...fields,
  } as Extract<PaymentCommand, { kind: K }>;
}

/** Decodes a CRT1 certificate and checks its Ed25519 signature with node:crypto against a published key. */
export function verifyCertificate(certificate: string, publicKey: string): Record<string, unknown> {
  const parts = certificate.split('.');
  expect(parts).toHaveLength(3);
  const [prefix, payloadPart, signaturePart] = parts as [string, string, string];
  expect(prefix).toBe('CRT1');
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: publicKey }, format: 'jwk' });
  const ok = verify(null, Buffer.from(`CRT1.${payloadPart}`, 'ascii'), key, Buffer.from(signaturePart, 'base64url'));
  expect(ok, 'signature verifies with the published key').toBe(true);
  return JSON.parse(Buffer.from(payloadPart, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** Unix seconds of an ISO instant. */
export const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** A real store that also records every write (collection and operation), to see which operations only read. */
export function recordWrites(inner: Store): { store: Store; writes: string[] } {
  const writes: string[] = [];
  const store: Store = {
    close: () => inner.close(),
    transaction: (work) =>
      inner.transaction((tx) =>
        work({
          ...tx,
          get: tx.get.bind(tx),
          findOne: tx.findOne.bind(tx),
          findMany: tx.findMany.bind(tx),
          count: tx.count.bind(tx),
          page: tx.page.bind(tx),
          insert: (collection, record) => (writes.push(`insert ${collection}`), tx.insert(collection, record)),
          update: (collection, record) => (writes.push(`update ${collection}`), tx.update(collection, record)),
          delete: (collection, id) => (writes.push(`delete ${collection}`), tx.delete(collection, id)),
        }),
      ),
  };
  return { store, writes };
}
