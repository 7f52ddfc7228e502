import type { LicenseStatus } from '@svc-licensing/cert-format';
import { LicensingError } from './errors.js';
import type { ActivationRecord, LicenseRecord, ProductRecord, RevocationEntryRecord } from './records.js';
export type { CachedRevocationList, RevocationListText } from './revocation-records.js';
import type { StoreTx } from './store.js';
import type { EngineContext } from './context.js';
import { sha256Hex } from './hash.js';
import { together } from './together.js';

const DAY = 86_400;


/**
 * How long after the change an entry stays listed: certificates live at most 365 days
 * (`offlineDays` <= 365), and the server does not track each certificate's `expiresAt`, so an
 * entry's `until` is the change plus 365 days rounded up to a whole UTC day (docs/rvl1.md, "What
 * the server signs", rule 5): at or after the `expiresAt` of every certificate issued before it.
 */
export const REVOCATION_ENTRY_DAYS = 365;

/** The drop-out instant of an entry made at `at` (Unix seconds). */
export function dropOutOf(at: number): number {
  return Math.ceil((at + REVOCATION_ENTRY_DAYS * DAY) / DAY) * DAY;
}

/** The ID of the entry of a license (`fingerprint` null) or of a machine freed from it. */
export function revocationEntryId(licenseId: string, fingerprint: string | null): string {
  const subject = fingerprint === null ? `license:${licenseId}` : `activation:${licenseId}:${fingerprint}`;
  return `rve_${sha256Hex(subject).slice(0, 40)}`;
}

/**
 * The `issuedAt` of a certificate of `activation` signed at `nowMs`: the current second, or the
 * activation's `certificatesFrom` while that is ahead of it (a machine activated again in the
 * second it was freed). So every certificate issued after a freeing has `issuedAt` > its `freedAt`
 * and passes the freeing's entry, which still blocks the older ones (docs/rvl1.md, rule 6).
 */
export function issuedAtOf(nowMs: number, activation: Pick<ActivationRecord, 'certificatesFrom'>): number {
  return Math.max(Math.floor(nowMs / 1000), activation.certificatesFrom ?? 0);
}

/** Statuses whose certificates a list blocks: revoked (also by chargeback) and refunded. */
const BLOCKED: readonly LicenseStatus[] = ['revoked', 'refunded'];

/**
 * What a status change does to the license's entry: `list` on entering revoked or refunded, `unlist`
 * on leaving refunded (or a suspension, which may have followed a refund) for a usable status;
 * null otherwise (a refunded license suspended keeps its entry).
 */
export function revocationChangeOf(before: LicenseStatus, after: LicenseStatus): 'list' | 'unlist' | null {
  if (before === after) return null;
  if (BLOCKED.includes(after)) return BLOCKED.includes(before) ? null : 'list';
  if (after === 'suspended') return null;
  return before === 'refunded' || before === 'suspended' ? 'unlist' : null;
}

/** A change a product's revocation list follows. */
export type RevocationChange =
  | { kind: 'license'; license: LicenseRecord; change: 'list' | 'unlist' }
  | { kind: 'activation'; license: LicenseRecord; activation: ActivationRecord };

/**
 * Adds (or removes) the change's entry and increments the product's `seq`, in the caller's unit of
 * work: the product row is locked, so concurrent changes of one product take one `seq` each. Its
 * writes are held for the unit's next statement or commit. Unlisting a license that has no entry
 * changes nothing. Answers the product as written, which the caller's views may use instead of
 * reading it again; null when nothing changed, or when the store's `recordRevocationEntry` wrote
 * the entry and the `seq` without reading the product.
 */
export async function recordRevocation(ctx: EngineContext, tx: StoreTx, change: RevocationChange): Promise<ProductRecord | null> {
  const { license } = change;
  const fingerprint = change.kind === 'activation' ? change.activation.fingerprint : null;
  const id = revocationEntryId(license.id, fingerprint);
  const listing = !(change.kind === 'license' && change.change === 'unlist');
  if (listing && tx.recordRevocationEntry) {
    // One held write pair, no read: the product's row is locked by its write, before the license's.
    const freedAt = change.kind === 'activation' ? issuedAtOf(ctx.clock.now(), change.activation) : null;
    const at = Math.floor(ctx.clock.now() / 1000);
    const entry = entryOf(license, id, fingerprint, freedAt, at);
    await tx.recordRevocationEntry(entry, Math.max(at, freedAt ?? 0));
    return null;
  }
  const [product, existing] = await together([tx.get('products', license.productId, { lock: true }), tx.get('revocationEntries', id)]);
  if (!product) throw new LicensingError('internal_error', `license ${license.id} refers to a missing product`);
  const at = Math.floor(ctx.clock.now() / 1000);
  // Never before the latest issuedAt the machine's certificates may carry (its `certificatesFrom`), so the entry blocks them all.
  const freedAt = change.kind === 'activation' ? issuedAtOf(ctx.clock.now(), change.activation) : null;
  if (!listing) {
    if (!existing) return null;
    await tx.delete('revocationEntries', id, { defer: true });
  } else {
    const entry = entryOf(license, id, fingerprint, freedAt, at);
    // A machine freed again (activated in between) keeps one entry: the latest freeing and drop-out.
    await (existing ? tx.update('revocationEntries', entry, { defer: true }) : tx.insert('revocationEntries', entry, { defer: true }));
  }
  // The list's issuedAt is never before an entry's freedAt (which may be a second ahead of the clock).
  return bumpRevocationSeq(ctx, tx, product, freedAt ?? 0);
}

/** The entry of a license (`fingerprint` null) listed at `at`, or of its machine freed at `freedAt`. */
function entryOf(license: LicenseRecord, id: string, fingerprint: string | null, freedAt: number | null, at: number): RevocationEntryRecord {
  return { id, accountId: license.accountId, productId: license.productId, licenseId: license.id, fingerprint, freedAt, until: dropOutOf(freedAt ?? at) };
}

/**
 * The product's list changed (an entry, a new active key, entries dropped out): the next `seq`,
 * issued now, or at `notBefore` (Unix seconds) when that is later. `product` must be locked in this
 * unit. The write is held.
 */
export async function bumpRevocationSeq(ctx: EngineContext, tx: StoreTx, product: ProductRecord, notBefore = 0): Promise<ProductRecord> {
  const at = Math.max(Math.floor(ctx.clock.now() / 1000), product.revocationsAt ?? 0, notBefore);
  const next: ProductRecord = { ...product, revocationSeq: (product.revocationSeq ?? 0) + 1, revocationsAt: at };
  await tx.update('products', next, { defer: true });
  return next;
}
