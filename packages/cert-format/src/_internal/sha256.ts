import { sha256 } from '@noble/hashes/sha2.js';
import { toHex, utf8Encode } from './utf8.js';

type NodeCrypto = { createHash(algorithm: 'sha256'): { update(data: string, encoding: 'utf8'): { digest(encoding: 'hex'): string } } };

/**
 * node:crypto where the runtime hands it out without an import (Node 20.16+, Deno, Bun:
 * `process.getBuiltinModule`), so browsers and bundlers never see a Node import; else null.
 */
const nodeCrypto: NodeCrypto | null = (() => {
  const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  try {
    return typeof get === 'function' ? ((get('node:crypto') as NodeCrypto | undefined) ?? null) : null;
  } catch {
    return null;
  }
})();

/**
 * SHA-256 of a string's UTF-8 bytes, as lowercase hex: native where the runtime has node:crypto
 * (a license key is hashed on every client call; the native hash costs a fifth of the JS one),
 * else @noble/hashes. Both give the same digest.
 */
export function sha256Hex(text: string): string {
  return nodeCrypto ? nodeCrypto.createHash('sha256').update(text, 'utf8').digest('hex') : toHex(sha256(utf8Encode(text)));
}

/** The JS implementation alone, for tests that compare the two. */
export function sha256HexPortable(text: string): string {
  return toHex(sha256(utf8Encode(text)));
}
