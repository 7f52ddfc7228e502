import type { Random } from '../_internal/ports.js';

/** Requests up to this many bytes are served from a pool refilled 4 KiB at a time. */
const POOLED_MAX = 256;
const POOL_SIZE = 4096;
let pool = new Uint8Array(0);
let poolOffset = 0;

/**
 * The real random source: `globalThis.crypto.getRandomValues` (Web Crypto, built into Node 20).
 * Small requests (IDs, keys, nonces) are cut from a pool filled by one call per 4 KiB, as Node's
 * `randomUUID` does, since each call into the CSPRNG cost more than the bytes it returned; every
 * byte is handed out once.
 *
 * @example
 * ```ts
 * const sixteenBytes = cryptoRandom.bytes(16);
 * ```
 */
export const cryptoRandom: Random = {
  bytes(length: number): Uint8Array {
    if (length <= POOLED_MAX) {
      if (poolOffset + length > pool.length) {
        pool = globalThis.crypto.getRandomValues(new Uint8Array(POOL_SIZE));
        poolOffset = 0;
      }
      const out = pool.slice(poolOffset, poolOffset + length);
      // The bytes handed out are wiped from the pool, so they exist only in their copy.
      pool.fill(0, poolOffset, poolOffset + length);
      poolOffset += length;
      return out;
    }
    const out = new Uint8Array(length);
    // getRandomValues fills at most 65,536 bytes per call.
    for (let offset = 0; offset < length; offset += 65_536) {
      globalThis.crypto.getRandomValues(out.subarray(offset, Math.min(length, offset + 65_536)));
    }
    return out;
  },
};
