// TEST-ONLY key material and the base payload of the published CRT1 test vectors.
// These seeds are public: never use them to sign a real certificate.
import { createHash } from 'node:crypto';
import { machineFingerprint, type CertificatePayload } from '@svc-licensing/cert-format';

const seedFrom = (label: string): Uint8Array => new Uint8Array(createHash('sha256').update(label, 'utf8').digest());

/** Test-only seed of `k1`, the configured key of the vectors: SHA-256 of a fixed label. */
export const TEST_SEED_K1 = seedFrom('svc-licensing crt1 test vectors: test-only key k1');
/** Test-only seed of a key that is NOT configured in the vectors (signs the "unknown kid" cases). */
export const TEST_SEED_UNKNOWN = seedFrom('svc-licensing crt1 test vectors: test-only unknown key');
/** Test-only seed of a second key whose public key is configured under `k2`. */
export const TEST_SEED_K2 = seedFrom('svc-licensing crt1 test vectors: test-only key k2');

export const TEST_PRODUCT = 'prd_test0vectors';
export const TEST_MACHINE_ID = 'test-machine-0001';
export const TEST_FINGERPRINT = machineFingerprint(TEST_PRODUCT, TEST_MACHINE_ID);

/** Fixed issue time of the vectors: 2026-01-01T00:00:00Z. */
export const T0 = 1_767_225_600;
export const DAY = 86_400;

/** A valid active-subscription payload issued at T0, offline for 7 days, paid for 30. */
export function basePayload(overrides: Partial<CertificatePayload> = {}): CertificatePayload {
  return {
    v: 1,
    kid: 'k1',
    product: TEST_PRODUCT,
    license: 'lic_test0001',
    plan: 'pro',
    entitlements: ['export', 'sync'],
    status: 'active',
    seats: 1,
    licensee: 'Test Licensee',
    fingerprint: TEST_FINGERPRINT,
    paidUntil: T0 + 30 * DAY,
    validUntil: T0 + 37 * DAY,
    maxMajor: null,
    issuedAt: T0,
    refreshAfter: T0 + DAY,
    expiresAt: T0 + 7 * DAY,
    ...overrides,
  };
}
