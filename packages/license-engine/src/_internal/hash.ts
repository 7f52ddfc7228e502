import { createHash } from 'node:crypto';

/**
 * Lowercase hex SHA-256 of a UTF-8 text (tokens, markers, secret versions). License keys are
 * hashed by cert-format's `hashLicenseKey`, the one definition of their lookup hash.
 */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
