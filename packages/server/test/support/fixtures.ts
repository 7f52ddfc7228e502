import { machineFingerprint } from '@svc-licensing/cert-format';
import { expect } from 'vitest';
import type { Harness } from './harness.js';

/** Creates a product over HTTP and returns its view. */
export async function createProduct(h: Harness, overrides: Record<string, unknown> = {}, key?: string) {
  const res = await h.api('POST', '/products', { name: 'Acme Editor', keyPrefix: 'ACME', graceDays: 3, offlineDays: 14, ...overrides }, key === undefined ? {} : { key });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; name: string; keyPrefix: string };
}

/** Creates a plan over HTTP and returns its view. */
export async function createPlan(h: Harness, productId: string, overrides: Record<string, unknown> = {}) {
  const res = await h.api('POST', `/products/${productId}/plans`, { code: 'pro', kind: 'subscription', maxActivations: 2, entitlements: ['export'], ...overrides });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; code: string };
}

/** A product, a subscription plan and an active license paid for 30 days; returns all three. */
export async function licensed(h: Harness, licenseOverrides: Record<string, unknown> = {}, planOverrides: Record<string, unknown> = {}) {
  const product = await createProduct(h);
  const plan = await createPlan(h, product.id, planOverrides);
  const paidUntil = new Date(h.clock.now() + 30 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const res = await h.api('POST', '/licenses', { plan: plan.id, email: 'Buyer@Example.com', name: 'Ada Buyer', paidUntil, ...licenseOverrides });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { product, plan, license: res.body as { id: string; key: string; status: string; activationLimit: number } };
}

/** The fingerprint of machine `n` for a product. */
export function fingerprint(productId: string, n: number | string): string {
  return machineFingerprint(productId, `machine-${n}`);
}
