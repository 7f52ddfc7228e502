import { createHash } from 'node:crypto';
import { normalizeLicenseKey } from '@svc-licensing/cert-format';

/** Lowercase hex SHA-256 of a UTF-8 text. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * cert-format's `hashLicenseKey` (SHA-256 of the normalized key) with node:crypto's native hash:
 * every client call hashes its key, and cert-format's portable JavaScript hash (it also runs in
 * browsers) cost 3–5% of a validate. Same digest; a test compares the two.
 */
export function licenseKeyHash(key: string): string {
  return sha256Hex(normalizeLicenseKey(key));
}
