import type { CertificatePayload } from '@svc-licensing/cert-format';
import { certificateTimes } from '@svc-licensing/cert-format';
import { createCertificateSigner } from '@svc-licensing/cert-format/sign';
import type { CertificateSigner } from '@svc-licensing/cert-format/sign';
import { LicensingError } from '../_internal/errors.js';
import type { ActivationRecord, LicenseRecord, PlanRecord, ProductRecord, SigningKeyRecord, Timestamp } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import type { EngineContext } from '../_internal/context.js';
import { maxMajorOf, validUntilOf } from '../_internal/effective.js';
import { unixSeconds } from '../_internal/time.js';
import { issuedAtOf } from '../_internal/revocations.js';

/** A certificate decided inside a unit of work, signed after it ends ({@link signCertificateOf}). */
export interface UnsignedCertificate {
  payload: CertificatePayload;
  signer: CertificateSigner;
}

/**
 * Builds the CRT1 payload for one license on one machine (its activation as stored in this unit),
 * with the product's active key. `issuedAt` is now, or the activation's `certificatesFrom` while
 * that is ahead (`issuedAtOf`).
 * Terms come from the license's current plan (entitlements, maxMajor unless overridden,
 * offlineDays override else the product's), so a plan change applies at the next certificate.
 * `signingKey`: the product's active key when the caller already read it in this unit (it is
 * then not read again); the signer itself is cached per key record, whose seed never changes.
 * Everything is read in the unit; the signature is computed in libuv's pool (started after the unit
 * ends, or by a quick renewal at the unit's end so it overlaps the commit), so no store lock or
 * pooled connection is held longer for signing.
 */
export async function prepareCertificate(
  ctx: EngineContext,
  tx: StoreTx,
  parts: {
    license: LicenseRecord;
    plan: PlanRecord;
    product: ProductRecord;
    activation: ActivationRecord;
    signingKey?: SigningKeyRecord | null;
    /** A floating plan's lease as stored (docs/floating-seats.md): its length, its end, and the borrow in force. */
    lease?: { leaseSeconds: number; leaseExpiresAt: Timestamp; borrowedUntil: Timestamp | null };
  },
): Promise<UnsignedCertificate> {
  const { license, plan, product } = parts;
  const { fingerprint } = parts.activation;
  const key = parts.signingKey !== undefined ? parts.signingKey : await tx.findOne('signingKeys', { productId: product.id, status: 'active' });
  if (!key) throw new LicensingError('internal_error', `product ${product.id} has no active signing key`);
  let signer = ctx.signers.get(key.id);
  if (!signer) {
    const seed = ctx.secrets.decrypt(key.privateKey, { purpose: 'signing-key', record: key.id });
    signer = createCertificateSigner(seed);
    seed.fill(0);
    ctx.signers.set(key.id, signer);
  }
  const issuedAt = issuedAtOf(ctx.clock.now(), parts.activation);
  const validUntil = validUntilOf(license, product);
  const validUntilSeconds = validUntil === null ? null : unixSeconds(validUntil);
  const times = parts.lease
    ? floatingTimes(issuedAt, validUntilSeconds, parts.lease)
    : certificateTimes({
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

/**
 * The times of a floating plan's certificate (docs/floating-seats.md, "Certificates of floating
 * plans"): one lease, refreshed after a third of it; while a borrow stands, until the borrow's end,
 * refreshed daily. Never after `validUntil`, and never after the stored lease `leaseExpiresAt` (a
 * renewed lease ends at `issuedAt` + `leaseSeconds` or later, or at the borrow's end; a heartbeat
 * that did not renew answers the lease end stored before it).
 */
export function floatingTimes(
  issuedAt: number,
  validUntil: number | null,
  lease: { leaseSeconds: number; leaseExpiresAt: Timestamp; borrowedUntil: Timestamp | null },
): { refreshAfter: number; expiresAt: number } {
  const stored = unixSeconds(lease.leaseExpiresAt);
  const cap = (end: number) => Math.min(stored, validUntil === null ? end : Math.min(validUntil, end));
  if (lease.borrowedUntil !== null) {
    const expiresAt = cap(unixSeconds(lease.borrowedUntil));
    return { refreshAfter: Math.min(issuedAt + 86_400, expiresAt), expiresAt };
  }
  return { refreshAfter: issuedAt + Math.floor(lease.leaseSeconds / 3), expiresAt: cap(issuedAt + lease.leaseSeconds) };
}

/** Signs a prepared certificate off the event loop (libuv's thread pool). */
export function signCertificateOf(unsigned: UnsignedCertificate): Promise<string> {
  return unsigned.signer.signAsync(unsigned.payload);
}
