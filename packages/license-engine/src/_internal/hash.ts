import { createHash } from 'node:crypto';

/** Lowercase hex SHA-256 of a UTF-8 text. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
