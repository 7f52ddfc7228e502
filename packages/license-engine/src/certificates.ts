import type { CertificatePayload } from '@svc-licensing/cert-format';
import { certificateTimes } from '@svc-licensing/cert-format';
import { createCertificateSigner } from '@svc-licensing/cert-format/sign';
import type { CertificateSigner } from '@svc-licensing/cert-format/sign';
import { LicensingError } from './errors.js';
import type { LicenseRecord, PlanRecord, ProductRecord, SigningKeyRecord } from './records.js';
import type { StoreTx } from './store.js';
import type { EngineContext } from './_internal/context.js';
import { maxMajorOf, validUntilOf } from './_internal/effective.js';
import { unixSeconds } from './_internal/time.js';

/** A certificate decided inside a unit of work, signed after it ends ({@link signCertificateOf}). */
export interface UnsignedCertificate {
  payload: CertificatePayload;
  signer: CertificateSigner;
}

/**
 * Builds the CRT1 payload for one license on one machine, with the product's active key.
 * Terms come from the license's current plan (entitlements, maxMajor unless overridden,
 * offlineDays override else the product's), so a plan change applies at the next certificate.
 * `signingKey`: the product's active key when the caller already read it in this unit (it is
 * then not read again); the signer itself is cached per key record, whose seed never changes.
 * Everything is read in the unit; the signature is computed after it ends, so no store lock or
 * pooled connection is held while signing.
 */
export async function prepareCertificate(
  ctx: EngineContext,
  tx: StoreTx,
  parts: { license: LicenseRecord; plan: PlanRecord; product: ProductRecord; fingerprint: string; signingKey?: SigningKeyRecord | null },
): Promise<UnsignedCertificate> {
  const { license, plan, product, fingerprint } = parts;
  const key = parts.signingKey !== undefined ? parts.signingKey : await tx.findOne('signingKeys', { productId: product.id, status: 'active' });
  if (!key) throw new LicensingError('internal_error', `product ${product.id} has no active signing key`);
  let signer = ctx.signers.get(key.id);
  if (!signer) {
    const seed = ctx.secrets.decrypt(key.privateKey);
    signer = createCertificateSigner(seed);
    seed.fill(0);
    ctx.signers.set(key.id, signer);
  }
  const issuedAt = Math.floor(ctx.clock.now() / 1000);
  const validUntil = validUntilOf(license, product);
  const validUntilSeconds = validUntil === null ? null : unixSeconds(validUntil);
  const times = certificateTimes({
    kind: license.paidUntil === null ? 'perpetual' : plan.kind === 'trial' ? 'trial' : 'subscription',
    issuedAt,
    validUntil: validUntilSeconds,
    offlineDays: plan.offlineDays ?? product.offlineDays,
  });
  const payload: CertificatePayload = {
    v: 1,
    kid: key.kid,
    product: product.id,
    license: license.id,
    plan: plan.code,
    entitlements: [...plan.entitlements],
    status: license.status,
    seats: license.seats,
    licensee: license.customerName,
    fingerprint,
    paidUntil: license.paidUntil === null ? null : unixSeconds(license.paidUntil),
    validUntil: validUntilSeconds,
    maxMajor: maxMajorOf(license, plan),
    issuedAt,
    refreshAfter: times.refreshAfter,
    expiresAt: times.expiresAt,
  };
  return { payload, signer };
}

/** Signs a prepared certificate off the event loop (libuv's thread pool). */
export function signCertificateOf(unsigned: UnsignedCertificate): Promise<string> {
  return unsigned.signer.signAsync(unsigned.payload);
}
