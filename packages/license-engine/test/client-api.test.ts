import { beforeEach, describe, expect, it } from 'vitest';
import { hashLicenseKey } from '@svc-licensing/cert-format';
import type { LicenseDetailView } from '@svc-licensing/license-engine';
import type { Catalog, TestEngine } from './fixtures.js';
import { DAY, START, changed, codeOf, command, createCatalog, createTestEngine, fingerprint, paid, seconds, verifyCertificate } from './fixtures.js';

let t: TestEngine;
let c: Catalog;
let license: LicenseDetailView;
let publicKey: string;

beforeEach(async () => {
  t = createTestEngine();
  c = await createCatalog(t);
  ({ license } = await t.engine.createLicense(c.account.id, { plan: c.plans.pro.id, email: 'ann@example.test', name: 'Ann Lee', paidUntil: '2030-02-15T10:00:00Z' }));
  publicKey = (await t.engine.listSigningKeys(c.account.id, c.product.id)).data[0]!.publicKey;
});

const activate = (n: number, over: Record<string, unknown> = {}) =>
  t.engine.activate({ product: c.product.id, key: license.key, fingerprint: fingerprint(n), ...over });
const validate = (n: number, over: Record<string, unknown> = {}) =>
  t.engine.validate({ product: c.product.id, key: license.key, fingerprint: fingerprint(n), ...over });
const deactivate = (n: number) => t.engine.deactivate({ product: c.product.id, key: license.key, fingerprint: fingerprint(n) });
const detail = () => t.engine.getLicense(c.account.id, license.id);

describe('activate', () => {
  it('creates an activation and returns a certificate signed by the active key with the spec payload', async () => {
    const result = await activate(1, { name: 'Laptop', platform: 'darwin', appVersion: '2.1.0' });
    expect(result.activation).toMatch(/^act_/);
    const payload = verifyCertificate(result.certificate, publicKey);
    const issuedAt = seconds(START);
    expect(payload).toEqual({
      v: 1,
      kid: 'k1',
      product: c.product.id,
      license: license.id,
      plan: 'pro',
      entitlements: ['export', 'sync'],
      status: 'active',
      seats: 1,
      licensee: 'Ann Lee',
      fingerprint: fingerprint(1),
      paidUntil: seconds('2030-02-15T10:00:00Z'),
      validUntil: seconds('2030-02-18T10:00:00Z'),
      maxMajor: 3,
      issuedAt,
      refreshAfter: issuedAt + 86_400,
      expiresAt: issuedAt + 7 * 86_400,
    });
    const after = await detail();
    expect(after.activationCount).toBe(1);
    expect(after.activations).toEqual([
      {
        id: result.activation, fingerprint: fingerprint(1), name: 'Laptop', platform: 'darwin', appVersion: '2.1.0', createdAt: START, lastSeenAt: START,
        leaseExpiresAt: null, borrowedUntil: null, leaseState: null,
      },
    ]);
  });

  it('accepts the key in any letter case and with spaces', async () => {
    const sloppy = ` ${license.key.toLowerCase().replace('-', ' - ')} `;
    const result = await t.engine.activate({ product: c.product.id, key: sloppy, fingerprint: fingerprint(1) });
    expect(result.activation).toMatch(/^act_/);
  });

  it('is idempotent for a known fingerprint: same activation, no extra seat, lastSeenAt refreshed', async () => {
    const first = await activate(1);
    t.clock.advance(3_600_000);
    const again = await activate(1);
    expect(again.activation).toBe(first.activation);
    const after = await detail();
    expect(after.activationCount).toBe(1);
    expect(after.activations[0]?.lastSeenAt).toBe('2030-01-15T11:00:00Z');
  });

  it('refuses a machine beyond the limit (plan machines x seats) with activation_limit, saying how many are in use in words', async () => {
    await activate(1);
    await activate(2);
    expect(await codeOf(activate(3))).toBe('activation_limit');
    expect(await activate(3).catch((error: Error) => error.message)).toBe('all 2 activations of this license are in use: free a machine first');
    expect((await detail()).activationCount).toBe(2);
    await t.engine.updateLicense(c.account.id, license.id, { seats: 2 });
    await activate(3);
    await activate(4);
    expect(await codeOf(activate(5))).toBe('activation_limit');
  });

  it('re-activating a known machine works at the limit; a lower limit keeps existing machines and refuses new ones', async () => {
    await activate(1);
    await activate(2);
    await activate(1);
    await t.engine.updateLicense(c.account.id, license.id, { maxActivations: 1 });
    await validate(2);
    await activate(2);
    expect(await codeOf(activate(3))).toBe('activation_limit');
    await deactivate(1);
    expect(await codeOf(activate(3))).toBe('activation_limit');
    await deactivate(2);
    await activate(3);
  });

  it('a per-license maxActivations override replaces plan machines x seats; null returns to it', async () => {
    await t.engine.updateLicense(c.account.id, license.id, { maxActivations: 1, seats: 4 });
    expect((await detail()).activationLimit).toBe(1);
    await activate(1);
    expect(await codeOf(activate(2))).toBe('activation_limit');
    expect(await activate(2).catch((error: Error) => error.message)).toBe('the one activation of this license is in use: free a machine first');
    await t.engine.updateLicense(c.account.id, license.id, { maxActivations: null });
    expect((await detail()).activationLimit).toBe(8);
    await activate(2);
  });

  it('answers unknown_product, unknown_key (also for another product\'s key) and invalid_request', async () => {
    expect(await codeOf(t.engine.activate({ product: 'prd_missing', key: license.key, fingerprint: fingerprint(1) }))).toBe('unknown_product');
    const otherKey = license.key.slice(0, -1) + (license.key.endsWith('2') ? '3' : '2');
    expect(await codeOf(t.engine.activate({ product: c.product.id, key: otherKey, fingerprint: fingerprint(1) }))).toBe('unknown_key');
    const other = await t.engine.createProduct(c.account.id, { name: 'Other', keyPrefix: 'OTH-' });
    expect(await codeOf(t.engine.activate({ product: other.id, key: license.key, fingerprint: fingerprint(1) }))).toBe('unknown_key');
    expect(await codeOf(t.engine.activate({ product: c.product.id, key: license.key, fingerprint: 'ABC' }))).toBe('invalid_request');
    expect(await codeOf(t.engine.activate({ product: c.product.id, key: license.key, fingerprint: fingerprint(1).toUpperCase() }))).toBe('invalid_request');
    expect(await codeOf(t.engine.activate({ product: c.product.id, key: 'not a key', fingerprint: fingerprint(1) }))).toBe('invalid_request');
    expect(await codeOf(t.engine.activate({ product: c.product.id, key: license.key, fingerprint: fingerprint(1), name: 5 } as never))).toBe('invalid_request');
    expect((await detail()).activationCount).toBe(0);
  });

  it.each([
    ['suspended', 'license_suspended'],
    ['refunded', 'license_refunded'],
    ['revoked', 'license_revoked'],
    ['expired', 'license_expired'],
  ] as const)('a %s license is refused with %s (activate and validate), no certificate', async (status, code) => {
    const created = await t.engine.applyPaymentCommand(c.providerB.id, paid({ occurredAt: '2030-01-15T09:00:00Z', paidUntil: '2030-02-15T09:00:00Z' }));
    const l = await t.engine.getLicense(c.account.id, created.licenseId!);
    const args = { product: c.product.id, key: l.key, fingerprint: fingerprint(1) };
    await t.engine.activate(args);
    if (status === 'suspended') await t.engine.suspendLicense(c.account.id, l.id);
    if (status === 'revoked') await t.engine.revokeLicense(c.account.id, l.id);
    if (status === 'refunded') await t.engine.applyPaymentCommand(c.providerB.id, command('refunded', { subscriptionId: 'sub_1', orderId: null, full: true }));
    if (status === 'expired') await t.engine.applyPaymentCommand(c.providerB.id, changed({ status: 'expired', occurredAt: '2030-01-16T00:00:00Z' }));
    expect(await codeOf(t.engine.activate(args))).toBe(code);
    expect(await codeOf(t.engine.validate(args))).toBe(code);
  });

  it.each(['active', 'past_due', 'canceled'] as const)('a %s license is usable until validUntil, then license_expired', async (status) => {
    const created = await t.engine.applyPaymentCommand(c.providerB.id, paid({ occurredAt: '2030-01-15T09:00:00Z', paidUntil: '2030-02-15T09:00:00Z' }));
    if (status !== 'active') await t.engine.applyPaymentCommand(c.providerB.id, changed({ status, occurredAt: '2030-01-16T00:00:00Z' }));
    const l = await t.engine.getLicense(c.account.id, created.licenseId!);
    const args = { product: c.product.id, key: l.key, fingerprint: fingerprint(1) };
    t.clock.set('2030-02-18T08:59:59Z'); // paidUntil + 3 grace days, minus one second
    const cert = verifyCertificate((await t.engine.activate(args)).certificate, publicKey);
    expect([cert.status, cert.expiresAt]).toEqual([status, seconds('2030-02-18T09:00:00Z')]);
    t.clock.set('2030-02-18T09:00:00Z');
    expect(await codeOf(t.engine.activate(args))).toBe('license_expired');
    expect(await codeOf(t.engine.validate(args))).toBe('license_expired');
  });

  it('a perpetual certificate expires offlineDays after issue; the plan override wins over the product', async () => {
    const { license: life } = await t.engine.createLicense(c.account.id, { plan: c.plans.lifetime.id, email: 'p@example.test' });
    const perpetual = verifyCertificate((await t.engine.activate({ product: c.product.id, key: life.key, fingerprint: fingerprint(1) })).certificate, publicKey);
    expect([perpetual.status, perpetual.paidUntil, perpetual.validUntil, perpetual.maxMajor]).toEqual(['perpetual', null, null, 1]);
    expect(perpetual.expiresAt).toBe(seconds(START) + 7 * 86_400);
    const { license: team } = await t.engine.createLicense(c.account.id, { plan: c.plans.team.id, email: 't@example.test', paidUntil: '2031-01-01T00:00:00Z' });
    const short = verifyCertificate((await t.engine.activate({ product: c.product.id, key: team.key, fingerprint: fingerprint(1) })).certificate, publicKey);
    expect(short.expiresAt).toBe(seconds(START) + 2 * 86_400);
  });

  it('a trial certificate ends at the trial end plus grace at the latest', async () => {
    await t.engine.updatePlan(c.account.id, c.plans.trial.id, { trialDays: 2 });
    const { license: trial } = await t.engine.createLicense(c.account.id, { plan: c.plans.trial.id, email: 'trial@example.test' });
    const payload = verifyCertificate((await t.engine.activate({ product: c.product.id, key: trial.key, fingerprint: fingerprint(1) })).certificate, publicKey);
    expect(payload.expiresAt).toBe(seconds(START) + 5 * 86_400);
    t.clock.advance(5 * DAY);
    expect(await codeOf(t.engine.validate({ product: c.product.id, key: trial.key, fingerprint: fingerprint(1) }))).toBe('license_expired');
  });

  it('a license maxMajor override replaces the plan\'s in certificates', async () => {
    await t.engine.updateLicense(c.account.id, license.id, { maxMajor: 5 });
    expect(verifyCertificate((await activate(1)).certificate, publicKey).maxMajor).toBe(5);
    await t.engine.updateLicense(c.account.id, license.id, { maxMajor: null });
    expect(verifyCertificate((await validate(1)).certificate, publicKey).maxMajor).toBe(3);
  });
});

describe('validate', () => {
  it('returns not_activated for a machine without an activation', async () => {
    expect(await codeOf(validate(1))).toBe('not_activated');
  });

  it('returns a fresh certificate and records lastSeenAt', async () => {
    await activate(1);
    t.clock.advance(2 * DAY);
    const payload = verifyCertificate((await validate(1, { appVersion: '2.2.0' })).certificate, publicKey);
    expect(payload.issuedAt).toBe(seconds(START) + 2 * 86_400);
    const [activation] = (await detail()).activations;
    expect([activation?.lastSeenAt, activation?.appVersion]).toEqual(['2030-01-17T10:00:00Z', '2.2.0']);
  });
});

describe('deactivate', () => {
  it('frees the seat for another machine', async () => {
    await activate(1);
    await activate(2);
    expect(await deactivate(1)).toEqual({ deactivated: true });
    expect((await detail()).activationCount).toBe(1);
    await activate(3);
    expect(await codeOf(validate(1))).toBe('not_activated');
  });

  it('answers not_activated for an unknown machine, and works on a revoked license', async () => {
    expect(await codeOf(deactivate(1))).toBe('not_activated');
    await activate(1);
    await t.engine.revokeLicense(c.account.id, license.id);
    await deactivate(1);
    expect((await detail()).activationCount).toBe(0);
  });

  it('the vendor can delete an activation: the seat is freed', async () => {
    const { activation } = await activate(1);
    await activate(2);
    const view = await t.engine.deleteActivation(c.account.id, activation);
    expect(view.activationCount).toBe(1);
    await activate(3);
    expect(await codeOf(t.engine.deleteActivation(c.account.id, activation))).toBe('not_found');
  });
});

describe('the key hash a host computed', () => {
  it('is what the call looks the license up by, so the key is hashed once per call (the host passes the key’s own)', async () => {
    const input = { product: c.product.id, key: license.key.toLowerCase(), fingerprint: fingerprint(1) };
    const keyHash = hashLicenseKey(input.key);
    const { activation } = await t.engine.activate(input, { keyHash });
    expect((await detail()).activations.map((a) => a.id)).toEqual([activation]);
    expect(verifyCertificate((await t.engine.validate(input, { keyHash })).certificate, publicKey).license).toBe(license.id);
    // Another license's hash finds that license: the engine did not hash the key again.
    const other = (await t.engine.createLicense(c.account.id, { plan: c.plans.pro.id, email: 'bo@example.test', paidUntil: '2030-02-15T10:00:00Z' })).license;
    expect(await codeOf(t.engine.validate(input, { keyHash: hashLicenseKey(other.key) }))).toBe('not_activated');
    expect(await t.engine.deactivate(input, { keyHash })).toEqual({ deactivated: true });
    expect((await detail()).activations).toEqual([]);
  });
});
