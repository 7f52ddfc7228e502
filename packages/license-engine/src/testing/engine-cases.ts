import { expect, it } from 'vitest';
import type { SubscriptionPaidCommand } from '../_internal/commands.js';
import { createLicenseEngine } from '../engine.js';
import { LicensingError } from '../_internal/errors.js';
import { createIdGenerator } from '../adapters/ids.js';
import { cryptoRandom } from '../adapters/random.js';
import { createSecretBox } from '../adapters/secret-box.js';
import type { Random } from '../_internal/ports.js';
import type { Store } from '../_internal/store.js';

export const NOW = Date.parse('2030-03-01T12:00:00Z');
export const fingerprint = (i: number) => i.toString(16).padStart(64, 'a');

/** An engine over the store under test, with one account, product, subscription plan and integration. */
export async function setup(store: Store, clock: { now(): number } = { now: () => NOW }, random: Random = cryptoRandom) {
  const engine = createLicenseEngine({
    store,
    clock,
    random,
    ids: createIdGenerator({ clock, random: cryptoRandom }),
    secrets: createSecretBox(new Uint8Array(32).fill(1)),
  });
  const { account } = await engine.createAccount({ name: 'Conformance', ownerEmail: 'owner@conformance.test', servicePlan: 'unlimited' });
  const product = await engine.createProduct(account.id, { name: 'App', keyPrefix: 'APP-' });
  const plan = await engine.createPlan(account.id, product.id, { code: 'pro', kind: 'subscription', maxActivations: 3 });
  const integration = await engine.createIntegration(account.id, { provider: 'provider_b', product: product.id, priceMap: { var_pro: 'pro' } });
  return { engine, account, product, plan, integration };
}

/**
 * A random source whose license-key draws (28 bytes) are recorded: once `repeatFirst` is set, the
 * next key draw repeats the first one's (and clears it), so that license's key clashes.
 */
export function repeatingKeys(): { random: Random; repeatFirst: boolean } {
  const draws: Uint8Array[] = [];
  const keys = {
    repeatFirst: false,
    random: {
      bytes(length: number): Uint8Array {
        if (length !== 28) return cryptoRandom.bytes(length);
        if (keys.repeatFirst && draws[0]) {
          keys.repeatFirst = false;
          return draws[0].slice();
        }
        // Every byte below 240 is a key character: one draw makes the whole key.
        const drawn = cryptoRandom.bytes(length).map((b) => b % 240);
        draws.push(drawn.slice());
        return drawn;
      },
    },
  };
  return keys;
}

const payment = (eventId: string, occurredAt: string, paidUntil: string): SubscriptionPaidCommand => ({
  kind: 'subscription_paid',
  provider: 'provider_b',
  eventId,
  eventType: 'subscription_payment_success',
  occurredAt,
  customer: { providerCustomerId: null, email: 'buyer@conformance.test', name: 'Buyer' },
  subscriptionId: 'sub_1',
  orderId: null,
  priceId: 'var_pro',
  quantity: 1,
  paidUntil,
});

/** `ok`, the code of a refused provider event, or the code of the error thrown. */
const codeOf = (result: PromiseSettledResult<unknown>) => {
  if (result.status === 'rejected') return LicensingError.is(result.reason) ? result.reason.code : String(result.reason);
  const value = result.value as { result?: unknown; code?: unknown } | undefined;
  return value?.result === 'refused' ? String(value.code) : 'ok';
};

/** The concurrency cases, run through the engine over the store under test. */
export function engineCases(store: () => Store): void {
  it('parallel activations of different machines never exceed the activation limit', async () => {
    const { engine, account, plan } = await setup(store());
    const { license } = await engine.createLicense(account.id, { plan: plan.id, email: 'a@conformance.test', paidUntil: '2030-12-31T00:00:00Z' });
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => engine.activate({ product: license.product, key: license.key, fingerprint: fingerprint(i) })),
    );
    const codes = results.map(codeOf);
    expect(codes.filter((c) => c === 'ok')).toHaveLength(3);
    expect(codes.filter((c) => c === 'activation_limit')).toHaveLength(7);
    const after = await engine.getLicense(account.id, license.id);
    expect(after.activationCount).toBe(3);
    expect(after.activations).toHaveLength(3);
  });

  it('a new license whose key clashes with an existing one gets another key (its unit of work runs again)', async () => {
    const keys = repeatingKeys();
    const { engine, account, plan } = await setup(store(), undefined, keys.random);
    const first = await engine.createLicense(account.id, { plan: plan.id, email: 'first@conformance.test', paidUntil: '2030-12-31T00:00:00Z' });
    keys.repeatFirst = true;
    const second = await engine.createLicense(account.id, { plan: plan.id, email: 'second@conformance.test', paidUntil: '2030-12-31T00:00:00Z' });
    expect(keys.repeatFirst).toBe(false);
    expect(second.license.key).not.toBe(first.license.key);
    expect((await engine.getLicense(account.id, second.license.id)).key).toBe(second.license.key);
    expect((await engine.listLicenses(account.id, {})).data.map((l) => l.id).sort()).toEqual([first.license.id, second.license.id].sort());
  });

  it('parallel activations of one machine use one seat', async () => {
    const { engine, account, plan } = await setup(store());
    const { license } = await engine.createLicense(account.id, { plan: plan.id, email: 'a@conformance.test', paidUntil: '2030-12-31T00:00:00Z' });
    const results = await Promise.all(
      Array.from({ length: 6 }, () => engine.activate({ product: license.product, key: license.key, fingerprint: fingerprint(1) })),
    );
    expect(new Set(results.map((r) => r.activation)).size).toBe(1);
    expect((await engine.getLicense(account.id, license.id)).activationCount).toBe(1);
  });

  it('a revoke racing payments ends revoked', async () => {
    const { engine, account, integration } = await setup(store());
    const first = await engine.applyPaymentCommand(integration.id, payment('evt_0', '2030-03-01T00:00:00Z', '2030-04-01T00:00:00Z'));
    const licenseId = first.licenseId!;
    const racers = [
      ...Array.from({ length: 6 }, (_, i) =>
        engine.applyPaymentCommand(integration.id, payment(`evt_${i + 1}`, `2030-03-01T00:00:0${i + 1}Z`, `2030-0${5 + (i % 4)}-01T00:00:00Z`)),
      ),
      engine.revokeLicense(account.id, licenseId),
    ];
    const codes = (await Promise.allSettled(racers)).map(codeOf);
    expect(codes.at(-1)).toBe('ok');
    expect(codes.every((c) => c === 'ok' || c === 'conflict')).toBe(true);
    expect((await engine.getLicense(account.id, licenseId)).status).toBe('revoked');
  });

  it('one provider event delivered many times at once is processed once', async () => {
    const { engine, account, integration } = await setup(store());
    const event = payment('evt_same', '2030-03-01T00:00:00Z', '2030-04-01T00:00:00Z');
    const results = await Promise.all(Array.from({ length: 8 }, () => engine.applyPaymentCommand(integration.id, event)));
    expect(results.filter((r) => r.result === 'processed')).toHaveLength(1);
    expect(results.filter((r) => r.result === 'duplicate')).toHaveLength(7);
    expect(results.filter((r) => r.keyEmail !== null)).toHaveLength(1);
    const licenses = await engine.listLicenses(account.id, { email: 'buyer@conformance.test' });
    expect(licenses.data).toHaveLength(1);
    const created = (await engine.listEvents(account.id, {})).data.filter((e) => e.type === 'license.created');
    expect(created).toHaveLength(1);
  });
}
