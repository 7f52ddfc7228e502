import type { RevocationListContent } from './revocation-list.js';
import { activationEntryKey, findSlot, licenseEntryKey } from './_internal/revocation-tables.js';

/** What {@link matchRevocation} looks up: the fields of a certificate that entries name. */
export interface RevocationSubject {
  /** The certificate's license ID. */
  license: string;
  /** The certificate's fingerprint. */
  fingerprint: string;
  /** The certificate's `issuedAt` (Unix seconds). */
  issuedAt: number;
}

/**
 * Which entry of a list blocks a certificate at `now`: `license` when its license is listed,
 * `activation` when its license and fingerprint are listed as freed at or after its `issuedAt`,
 * else null. Entries whose drop-out instant `until` is not after `now` are ignored. Two SHA-256 of
 * short texts and two hash-table probes; never throws.
 *
 * @example
 * ```ts
 * const blocked = matchRevocation(parsed.list, { license: cert.license, fingerprint: cert.fingerprint, issuedAt: cert.issuedAt }, now);
 * if (blocked !== null) console.log('revoked by its', blocked, 'entry');
 * ```
 */
export function matchRevocation(list: RevocationListContent, subject: RevocationSubject, now: number): 'license' | 'activation' | null {
  const { licenses, activations } = list.index;
  const { license, fingerprint, issuedAt } = subject;
  if (typeof license !== 'string') return null;
  if (licenses.count > 0) {
    const at = findSlot(licenses, licenseEntryKey(license));
    if (at >= 0 && now < licenses.slots[at + 2]!) return 'license';
  }
  if (activations.count > 0 && typeof fingerprint === 'string') {
    const at = findSlot(activations, activationEntryKey(license, fingerprint));
    if (at >= 0 && now < activations.slots[at + 2]! && issuedAt <= activations.slots[at + 3]!) return 'activation';
  }
  return null;
}
