import { sha256 } from '@noble/hashes/sha2.js';
import { toHex, utf8Encode } from './utf8.js';

// The universal SHA-256 (browsers and any other runtime): @noble/hashes, pure JavaScript. The
// `node` build (the package's `node` export condition) replaces this file with sha256.node.ts.

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`. */
export function sha256Hex(text: string): string {
  return toHex(sha256(utf8Encode(text)));
}
